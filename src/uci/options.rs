//! UCI options: their declarations (printed on `uci`), current values, and validation of
//! `setoption` (names matched case-insensitively; out-of-range values clamped with a warning;
//! unparsable values and unknown names refused so the previous value stays).

use crate::search::smp::SmpMode;
use crate::tt::table::MAX_HASH_MB;

/// How an option is declared to the GUI.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Spin {
        default: i64,
        min: i64,
        max: i64,
    },
    Check {
        default: bool,
    },
    Button,
    Combo {
        default: &'static str,
        choices: &'static [&'static str],
    },
    Str {
        default: &'static str,
    },
}

struct Spec {
    name: &'static str,
    kind: Kind,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "Hash",
        kind: Kind::Spin {
            default: 16,
            min: 1,
            max: MAX_HASH_MB as i64,
        },
    },
    Spec {
        name: "Threads",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 1024,
        },
    },
    Spec {
        name: "Clear Hash",
        kind: Kind::Button,
    },
    Spec {
        name: "Move Overhead",
        kind: Kind::Spin {
            default: 10,
            min: 0,
            max: 5000,
        },
    },
    Spec {
        name: "MultiPV",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 256,
        },
    },
    Spec {
        name: "Ponder",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "UCI_Chess960",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "SMP Mode",
        kind: Kind::Combo {
            default: DEFAULT_SMP_MODE,
            choices: &["lazy", "ybw", "hybrid"],
        },
    },
    Spec {
        name: "SMP Split Depth",
        kind: Kind::Spin {
            default: crate::search::smp::MIN_SPLIT_DEPTH as i64,
            min: 1,
            max: 64,
        },
    },
    Spec {
        name: "SMP Hybrid Margin",
        kind: Kind::Spin {
            default: crate::search::smp::HYBRID_MARGIN as i64,
            min: 0,
            max: 64,
        },
    },
    Spec {
        name: "Learning",
        kind: Kind::Check { default: false },
    },
    Spec {
        name: "Learn File",
        kind: Kind::Str {
            default: "trine.learn",
        },
    },
    Spec {
        name: "EvalFile",
        kind: Kind::Str {
            default: crate::nnue::DEFAULT_EVAL_FILE,
        },
    },
    Spec {
        name: "SyzygyPath",
        kind: Kind::Str {
            default: NO_SYZYGY_PATH,
        },
    },
    Spec {
        name: "SyzygyProbeDepth",
        kind: Kind::Spin {
            default: 1,
            min: 1,
            max: 100,
        },
    },
    Spec {
        name: "Syzygy50MoveRule",
        kind: Kind::Check { default: true },
    },
    Spec {
        name: "SyzygyProbeLimit",
        kind: Kind::Spin {
            default: 7,
            min: 0,
            max: 7,
        },
    },
    Spec {
        name: "Learn Threshold",
        kind: Kind::Spin {
            default: 33,
            min: 1,
            max: 1000,
        },
    },
    Spec {
        name: "Learn Capacity",
        kind: Kind::Spin {
            default: 65536,
            min: 1,
            max: 16_777_216,
        },
    },
];

/// The `SyzygyPath` value of no tablebases (as Stockfish); an empty value means the same.
pub const NO_SYZYGY_PATH: &str = "<empty>";

/// The parallel scheme used unless `SMP Mode` says otherwise: the one that measured best in Elo
/// (2 threads, `hybrid` against `lazy`, see docs/scaling.md).
pub const DEFAULT_SMP_MODE: &str = "hybrid";

/// Current option values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    /// TT size, MiB.
    pub hash_mb: usize,
    /// Search threads.
    pub threads: usize,
    /// Milliseconds kept back per move for GUI and network lag.
    pub move_overhead_ms: u64,
    /// Lines to report.
    pub multipv: usize,
    /// The GUI may send `go ponder`.
    pub ponder: bool,
    /// Chess960 castling notation and FENs.
    pub chess960: bool,
    /// How helper threads share the work.
    pub smp_mode: SmpMode,
    /// Smallest remaining depth at which a node offers a split point (`ybw`, `hybrid`).
    pub split_depth: i32,
    /// `hybrid`: how many plies below the root (in remaining depth) split points are offered.
    pub hybrid_margin: i32,
    /// Position learning on (persistent hash table).
    pub learning: bool,
    /// Path of the learn file.
    pub learn_file: String,
    /// Score drop (centipawns) that makes a root position worth remembering.
    pub learn_threshold: i32,
    /// Capacity of a new learn file, and the least an existing one grows to (a file with a
    /// larger capacity keeps its own).
    pub learn_capacity: usize,
    /// The `EvalFile` value in use (see [`crate::nnue::resolve`]).
    pub eval_file: String,
    /// The `SyzygyPath` value in use: the directories of the loaded tables, or
    /// [`NO_SYZYGY_PATH`].
    pub syzygy_path: String,
    /// Plies a node with as many men as the largest probed tables needs left to be probed.
    pub syzygy_probe_depth: i32,
    /// Cursed wins and blessed losses are draws (the fifty-move rule applies).
    pub syzygy_50_move_rule: bool,
    /// Most men probed (0: none).
    pub syzygy_probe_limit: usize,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            hash_mb: 16,
            threads: 1,
            move_overhead_ms: 10,
            multipv: 1,
            ponder: false,
            chess960: false,
            smp_mode: SmpMode::parse(DEFAULT_SMP_MODE).unwrap_or(SmpMode::Lazy),
            split_depth: crate::search::smp::MIN_SPLIT_DEPTH,
            hybrid_margin: crate::search::smp::HYBRID_MARGIN,
            learning: false,
            learn_file: "trine.learn".to_string(),
            learn_threshold: 33,
            learn_capacity: 65536,
            eval_file: crate::nnue::DEFAULT_EVAL_FILE.to_string(),
            syzygy_path: NO_SYZYGY_PATH.to_string(),
            syzygy_probe_depth: 1,
            syzygy_50_move_rule: true,
            syzygy_probe_limit: 7,
        }
    }
}

/// What a successful `setoption` changed (the engine acts on Hash, Threads and Clear Hash).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// New TT size requested (not yet applied: the allocation may fail).
    Hash(usize),
    /// New thread count.
    Threads(usize),
    /// Empty the TT.
    ClearHash,
    /// A learning option: the learn file must be (re)opened.
    Learn,
    /// A new `EvalFile` value (see [`crate::nnue::resolve`]); not yet stored in [`Options`],
    /// since reading the file may fail.
    EvalFile(String),
    /// A new `SyzygyPath` value; not yet stored in [`Options`], since loading the tables may fail.
    SyzygyPath(String),
    /// A value stored in [`Options`] directly.
    Stored,
}

/// The `option name ...` lines for `uci` (with `--features tune`, the search parameters too).
pub fn declarations() -> Vec<String> {
    let mut lines = fixed_declarations();
    if cfg!(feature = "tune") {
        for p in crate::search::params::PARAMS {
            lines.push(format!(
                "option name {} type spin default {} min {} max {}",
                p.name, p.default, p.min, p.max
            ));
        }
    }
    lines
}

fn fixed_declarations() -> Vec<String> {
    SPECS
        .iter()
        .map(|s| match s.kind {
            Kind::Spin { default, min, max } => format!(
                "option name {} type spin default {default} min {min} max {max}",
                s.name
            ),
            Kind::Check { default } => {
                format!("option name {} type check default {default}", s.name)
            }
            Kind::Button => format!("option name {} type button", s.name),
            Kind::Str { default } => {
                format!("option name {} type string default {default}", s.name)
            }
            Kind::Combo { default, choices } => {
                let vars: Vec<String> = choices.iter().map(|c| format!("var {c}")).collect();
                format!(
                    "option name {} type combo default {default} {}",
                    s.name,
                    vars.join(" ")
                )
            }
        })
        .collect()
}

fn parse_spin(
    name: &str,
    value: Option<&str>,
    min: i64,
    max: i64,
) -> Result<(i64, Vec<String>), String> {
    let text = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
    let text = text.trim();
    let v: i128 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number for option '{name}'"))?;
    let clamped = v.clamp(i128::from(min), i128::from(max)) as i64;
    let mut warnings = Vec::new();
    if clamped as i128 != v {
        warnings.push(format!(
            "value {text} for option '{name}' is out of range {min}..{max}, clamped to {clamped}"
        ));
    }
    Ok((clamped, warnings))
}

fn parse_check(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(other) => Err(format!("'{other}' is not true/false for option '{name}'")),
        None => Err(format!("option '{name}' needs a value true or false")),
    }
}

impl Options {
    /// Validates and applies one `setoption`. On error nothing changes.
    /// Returns what changed and warnings (e.g. clamping) to show as `info string error: ...`.
    pub fn set(
        &mut self,
        name: &str,
        value: Option<&str>,
    ) -> Result<(Change, Vec<String>), String> {
        #[cfg(feature = "tune")]
        if let Some(p) = crate::search::params::PARAMS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
        {
            let (v, warnings) = parse_spin(p.name, value, i64::from(p.min), i64::from(p.max))?;
            crate::search::params::set(p.name, v as i32);
            return Ok((Change::Stored, warnings));
        }
        let spec = SPECS
            .iter()
            .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| format!("unknown option '{}'", name.trim()))?;
        match spec.kind {
            Kind::Spin { min, max, .. } => {
                let (v, warnings) = parse_spin(spec.name, value, min, max)?;
                let change = match spec.name {
                    "Hash" => Change::Hash(v as usize),
                    "Threads" => {
                        self.threads = v as usize;
                        Change::Threads(v as usize)
                    }
                    "Move Overhead" => {
                        self.move_overhead_ms = v as u64;
                        Change::Stored
                    }
                    "SMP Split Depth" => {
                        self.split_depth = v as i32;
                        Change::Stored
                    }
                    "SMP Hybrid Margin" => {
                        self.hybrid_margin = v as i32;
                        Change::Stored
                    }
                    "Learn Threshold" => {
                        self.learn_threshold = v as i32;
                        Change::Stored
                    }
                    "Learn Capacity" => {
                        self.learn_capacity = v as usize;
                        Change::Learn
                    }
                    "SyzygyProbeDepth" => {
                        self.syzygy_probe_depth = v as i32;
                        Change::Stored
                    }
                    "SyzygyProbeLimit" => {
                        self.syzygy_probe_limit = v as usize;
                        Change::Stored
                    }
                    _ => {
                        self.multipv = v as usize;
                        Change::Stored
                    }
                };
                Ok((change, warnings))
            }
            Kind::Check { .. } => {
                let v = parse_check(spec.name, value)?;
                match spec.name {
                    "Ponder" => self.ponder = v,
                    "Learning" => {
                        self.learning = v;
                        return Ok((Change::Learn, Vec::new()));
                    }
                    "Syzygy50MoveRule" => self.syzygy_50_move_rule = v,
                    _ => self.chess960 = v,
                }
                Ok((Change::Stored, Vec::new()))
            }
            Kind::Button => Ok((Change::ClearHash, Vec::new())),
            Kind::Str { .. } if spec.name == "EvalFile" => Ok((
                Change::EvalFile(value.unwrap_or("").trim().to_string()),
                Vec::new(),
            )),
            Kind::Str { .. } if spec.name == "SyzygyPath" => Ok((
                Change::SyzygyPath(value.unwrap_or("").trim().to_string()),
                Vec::new(),
            )),
            Kind::Str { .. } => {
                let text = value.unwrap_or("").trim();
                if text.is_empty() {
                    return Err(format!("option '{}' needs a value", spec.name));
                }
                self.learn_file = text.to_string();
                Ok((Change::Learn, Vec::new()))
            }
            Kind::Combo { choices, .. } => {
                let text = value.unwrap_or("").trim();
                let mode = SmpMode::parse(text).ok_or_else(|| {
                    format!(
                        "'{text}' is not one of {} for option '{}'",
                        choices.join(", "),
                        spec.name
                    )
                })?;
                self.smp_mode = mode;
                Ok((Change::Stored, Vec::new()))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_and_clamp() {
        let mut o = Options::default();
        assert_eq!(o.set("hash", Some("64")).unwrap().0, Change::Hash(64));
        let (c, w) = o.set("Hash", Some("999999")).unwrap();
        assert_eq!(c, Change::Hash(MAX_HASH_MB));
        assert_eq!(w.len(), 1);
        assert!(o.set("Hash", Some("abc")).is_err());
        assert!(o.set("Hash", None).is_err());
        assert!(o.set("NoSuch", Some("1")).is_err());
        let (_, w) = o.set("Threads", Some("0")).unwrap();
        assert_eq!((o.threads, w.len()), (1, 1));
        o.set("MultiPV", Some("3")).unwrap();
        assert_eq!(o.multipv, 3);
        o.set("uci_chess960", Some("true")).unwrap();
        assert!(o.chess960);
        assert!(o.set("Ponder", Some("maybe")).is_err());
        assert!(!o.ponder);
        assert_eq!(o.set("Clear Hash", None).unwrap().0, Change::ClearHash);
        o.set("Move Overhead", Some("-5")).unwrap();
        assert_eq!(o.move_overhead_ms, 0);
        assert_eq!(fixed_declarations().len(), SPECS.len());
        o.set("smp mode", Some("YBW")).unwrap();
        assert_eq!(o.smp_mode, SmpMode::Ybw);
        o.set("SMP Split Depth", Some("5")).unwrap();
        assert_eq!(o.split_depth, 5);
        let (_, warnings) = o.set("smp split depth", Some("0")).unwrap();
        assert_eq!((o.split_depth, warnings.len()), (1, 1));
        assert_eq!(o.hybrid_margin, 2);
        o.set("SMP Hybrid Margin", Some("6")).unwrap();
        assert_eq!(o.hybrid_margin, 6);
        let (_, warnings) = o.set("smp hybrid margin", Some("99")).unwrap();
        assert_eq!((o.hybrid_margin, warnings.len()), (64, 1));
        assert!(o.set("SMP Hybrid Margin", Some("wide")).is_err());
        assert_eq!(o.hybrid_margin, 64);
        assert!(o.set("SMP Mode", Some("dts")).is_err());
        assert_eq!(o.set("Learning", Some("true")).unwrap().0, Change::Learn);
        assert!(o.learning);
        o.set("Learn File", Some("/tmp/some dir/x.learn")).unwrap();
        assert_eq!(o.learn_file, "/tmp/some dir/x.learn");
        assert!(o.set("Learn File", Some("  ")).is_err());
        assert_eq!(o.learn_file, "/tmp/some dir/x.learn");
        o.set("Learn Threshold", Some("50")).unwrap();
        assert_eq!(o.learn_threshold, 50);
        assert_eq!(o.smp_mode, SmpMode::Ybw);
    }

    #[test]
    fn syzygy_options_are_declared_as_stockfish_names_them() {
        let lines = fixed_declarations();
        for line in [
            "option name SyzygyPath type string default <empty>",
            "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
            "option name Syzygy50MoveRule type check default true",
            "option name SyzygyProbeLimit type spin default 7 min 0 max 7",
        ] {
            assert!(lines.iter().any(|l| l == line), "{line}");
        }
        let mut o = Options::default();
        // The path is only handed on: the engine stores it once the tables are loaded.
        let (c, _) = o.set("syzygypath", Some(" /tb/a:/tb/b ")).unwrap();
        assert_eq!(c, Change::SyzygyPath("/tb/a:/tb/b".to_string()));
        assert_eq!(o.syzygy_path, NO_SYZYGY_PATH);
        o.set("SyzygyProbeDepth", Some("12")).unwrap();
        assert_eq!(o.syzygy_probe_depth, 12);
        let (_, w) = o.set("SyzygyProbeDepth", Some("0")).unwrap();
        assert_eq!((o.syzygy_probe_depth, w.len()), (1, 1));
        o.set("SyzygyProbeLimit", Some("0")).unwrap();
        assert_eq!(o.syzygy_probe_limit, 0);
        let (_, w) = o.set("SyzygyProbeLimit", Some("9")).unwrap();
        assert_eq!((o.syzygy_probe_limit, w.len()), (7, 1));
        o.set("Syzygy50MoveRule", Some("false")).unwrap();
        assert!(!o.syzygy_50_move_rule);
        assert!(o.set("Syzygy50MoveRule", Some("sometimes")).is_err());
        assert!(!o.syzygy_50_move_rule);
        // None of them touches another option.
        assert_eq!((o.multipv, o.chess960), (1, false));
    }
}
