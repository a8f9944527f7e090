//! The `trine-match` command line (clap): flags in the style of cutechess-cli and fastchess
//! (`--engine cmd=... name=... option.Hash=16`, `--tc 8+0.08`, `--sprt elo0=0 elo1=5`, ...)
//! and their translation into a [`MatchConfig`].

use crate::matches::adjudication::{DrawRule, ResignRule};
use crate::matches::engine::EngineConfig;
use crate::matches::game::GameSettings;
use crate::matches::openings;
use crate::matches::runner::MatchConfig;
use crate::matches::stats::sprt::Sprt;
use crate::matches::tc::{Limit, TimeControl, DEFAULT_MARGIN_MS};
use clap::{ArgAction, CommandFactory, FromArgMatches, Parser};
use std::path::PathBuf;
use std::time::Duration;

/// Plays UCI engines against each other and reports Elo and an SPRT.
#[derive(Parser, Debug, Clone)]
#[command(
    name = "trine-match",
    version,
    about = "Plays two UCI engines against each other: openings in pairs with colours reversed, \
             PGN output, Elo from the pentanomial distribution, pentanomial SPRT"
)]
pub struct Cli {
    /// An engine: cmd=PATH [name=NAME] [arg=ARG ...] [dir=DIR] [option.NAME=VALUE ...]
    /// (give it twice; the first is engine A, whose results are reported).
    #[arg(
        long = "engine",
        num_args = 1..,
        value_name = "KEY=VALUE",
        required = true,
        action = ArgAction::Append
    )]
    pub engine: Vec<String>,
    /// The `--engine` values grouped by occurrence (filled by [`Cli::parse_args`]).
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,
    /// Settings applied to both engines before their own (e.g. option.Hash=16).
    #[arg(long = "each", num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Opening file: .epd (one position a line) or .pgn (the moves of each game).
    #[arg(long)]
    pub openings: PathBuf,
    /// Shuffle the openings (reproducibly, see --seed).
    #[arg(long)]
    pub random_order: bool,
    /// Seed for --random-order.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Use at most this many plies of each PGN opening.
    #[arg(long)]
    pub plies: Option<usize>,
    /// Number of games; each opening is played twice with colours reversed.
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Clock per side: base[+inc] or moves/base[+inc], in seconds (8+0.08).
    #[arg(long, value_name = "TC")]
    pub tc: Option<String>,
    /// Fixed time per move, milliseconds.
    #[arg(long, value_name = "MS")]
    pub movetime: Option<u64>,
    /// Fixed nodes per move.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Fixed depth per move.
    #[arg(long)]
    pub depth: Option<u32>,
    /// Games played at the same time, each with its own pair of engine processes.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// A move loses on time when it used more than the clock (or movetime) plus this, ms;
    /// moves past the clock within it are counted as overruns. The default, 0, is
    /// cutechess-cli's.
    #[arg(long, default_value_t = DEFAULT_MARGIN_MS, value_name = "MS")]
    pub time_margin: u64,
    /// Resign adjudication: movecount=N score=CP [twosided=true].
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
    /// Draw adjudication: movenumber=N movecount=N score=CP.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub draw: Option<Vec<String>>,
    /// Adjudicate a draw after this many full moves (book moves included).
    #[arg(long)]
    pub maxmoves: Option<u32>,
    /// Append the games to this PGN file.
    #[arg(long)]
    pub pgn: Option<PathBuf>,
    /// SPRT: elo0=E elo1=E [alpha=0.05] [beta=0.05] (logistic Elo, pentanomial GSPRT);
    /// the match stops when it decides.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Print Elo/SPRT statistics every N games: `every=N` or `N` (default 10).
    #[arg(long, num_args = 1.., value_name = "every=N")]
    pub report: Option<Vec<String>>,
    /// Stop once at least N games are played and one engine has scored every point.
    #[arg(long, value_name = "N")]
    pub decisive_stop: Option<usize>,
    /// Deadline for uciok/readyok, ms (an engine that misses it stalls).
    #[arg(long, default_value_t = 10_000, value_name = "MS")]
    pub ready_timeout: u64,
    /// Deadline for a bestmove under --nodes or --depth, ms.
    #[arg(long, default_value_t = 60_000, value_name = "MS")]
    pub search_timeout: u64,
    /// PGN Event tag.
    #[arg(long, default_value = "trine-match")]
    pub event: String,
    /// Echo all engine traffic to stderr.
    #[arg(long)]
    pub debug: bool,
}

fn key_value<'a>(tokens: &'a [String], what: &str) -> Result<Vec<(&'a str, &'a str)>, String> {
    tokens
        .iter()
        .map(|t| {
            t.split_once('=')
                .ok_or_else(|| format!("{what}: '{t}' is not key=value"))
        })
        .collect()
}

fn parse_sprt(tokens: &[String]) -> Result<Sprt, String> {
    let (mut elo0, mut elo1, mut alpha, mut beta) = (None, None, 0.05, 0.05);
    for (k, v) in key_value(tokens, "--sprt")? {
        let x: f64 = v
            .parse()
            .map_err(|_| format!("--sprt: bad number '{v}' for {k}"))?;
        match k {
            "elo0" => elo0 = Some(x),
            "elo1" => elo1 = Some(x),
            "alpha" => alpha = x,
            "beta" => beta = x,
            _ => return Err(format!("--sprt: unknown setting '{k}'")),
        }
    }
    let (Some(e0), Some(e1)) = (elo0, elo1) else {
        return Err("--sprt needs elo0= and elo1=".to_string());
    };
    Sprt::new(e0, e1, alpha, beta)
}

fn parse_report(tokens: &[String]) -> Result<usize, String> {
    let joined = tokens.join(" ");
    let n = joined
        .trim()
        .trim_start_matches("every")
        .trim_start_matches(['=', ' '])
        .trim_end_matches("games")
        .trim();
    n.parse()
        .map_err(|_| format!("--report: expected every=N, got '{joined}'"))
}

impl Cli {
    /// Parses a command line (program name first), grouping the `--engine` values by
    /// occurrence.
    pub fn parse_args<I, T>(args: I) -> Result<Self, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        let matches = Self::command().try_get_matches_from(args)?;
        let mut cli = Self::from_arg_matches(&matches)?;
        cli.engines = matches
            .get_occurrences::<String>("engine")
            .map(|occ| occ.map(|vals| vals.cloned().collect()).collect())
            .unwrap_or_default();
        Ok(cli)
    }

    /// The search limit: exactly one of --tc, --movetime, --nodes, --depth.
    pub fn limit(&self) -> Result<Limit, String> {
        let mut limits = Vec::new();
        if let Some(tc) = &self.tc {
            limits.push(Limit::Clock(TimeControl::parse(tc)?));
        }
        if let Some(ms) = self.movetime {
            limits.push(Limit::MoveTime(ms));
        }
        if let Some(n) = self.nodes {
            limits.push(Limit::Nodes(n));
        }
        if let Some(d) = self.depth {
            limits.push(Limit::Depth(d));
        }
        match limits.as_slice() {
            [one] => Ok(*one),
            [] => Err("give one of --tc, --movetime, --nodes, --depth".to_string()),
            _ => Err("give only one of --tc, --movetime, --nodes, --depth".to_string()),
        }
    }

    /// Checks the flags, reads the openings and builds the match configuration.
    pub fn into_config(self) -> Result<MatchConfig, String> {
        if self.engines.len() != 2 {
            return Err(format!(
                "give exactly two --engine (got {})",
                self.engines.len()
            ));
        }
        let a = EngineConfig::parse(&self.engines[0], &self.each)?;
        let mut b = EngineConfig::parse(&self.engines[1], &self.each)?;
        if a.name == b.name {
            b.name.push_str("-2");
        }
        if self.games == 0 {
            return Err("--games must be at least 1".to_string());
        }
        let limit = self.limit()?;
        if !matches!(limit, Limit::Clock(_)) && (a.tc.is_some() || b.tc.is_some()) {
            return Err("an engine's tc= needs --tc (the clock of an engine without one)".into());
        }
        let mut openings = openings::load(&self.openings, self.plies)?;
        if self.random_order {
            openings::shuffle(&mut openings, self.seed);
        }
        let settings = GameSettings {
            limit,
            margin_ms: self.time_margin,
            resign: self.resign.as_deref().map(ResignRule::parse).transpose()?,
            draw: self.draw.as_deref().map(DrawRule::parse).transpose()?,
            max_moves: self.maxmoves,
            ready_timeout: Duration::from_millis(self.ready_timeout),
            search_timeout: Duration::from_millis(self.search_timeout),
        };
        Ok(MatchConfig {
            engines: [a, b],
            openings,
            games: self.games,
            concurrency: self.concurrency.max(1),
            settings,
            pgn: self.pgn,
            sprt: self.sprt.as_deref().map(parse_sprt).transpose()?,
            report_every: self
                .report
                .as_deref()
                .map(parse_report)
                .transpose()?
                .unwrap_or(10),
            decisive_stop: self.decisive_stop,
            event: self.event,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(args: &str) -> Result<Cli, clap::Error> {
        Cli::parse_args(std::iter::once("trine-match").chain(args.split_whitespace()))
    }

    #[test]
    fn flags_parse() {
        let c = cli(
            "--engine cmd=a name=A option.Hash=16 --engine cmd=b --openings x.epd --tc 8+0.08 \
             --sprt elo0=0 elo1=5 --report every=4 --resign movecount=3 score=1000 --games 10",
        )
        .unwrap();
        assert_eq!(c.engines.len(), 2);
        assert_eq!(c.engines[0], ["cmd=a", "name=A", "option.Hash=16"]);
        assert_eq!(c.engines[1], ["cmd=b"]);
        assert_eq!(
            c.limit().unwrap(),
            Limit::Clock(TimeControl::parse("8+0.08").unwrap())
        );
        let s = parse_sprt(c.sprt.as_ref().unwrap()).unwrap();
        assert_eq!((s.elo0, s.elo1, s.alpha, s.beta), (0.0, 5.0, 0.05, 0.05));
        assert_eq!(parse_report(c.report.as_ref().unwrap()).unwrap(), 4);
        assert_eq!(parse_report(&["every".into(), "7".into()]).unwrap(), 7);
        assert_eq!(parse_report(&["3".into()]).unwrap(), 3);
        assert!(parse_report(&["x".into()]).is_err());
    }

    #[test]
    fn time_margin_defaults_to_cutechess_zero() {
        let c = cli("--engine cmd=a --engine cmd=b --openings x.epd --tc 1+0.01").unwrap();
        assert_eq!(c.time_margin, 0);
        let c = cli("--engine cmd=a --engine cmd=b --openings x.epd --time-margin 25").unwrap();
        assert_eq!(c.time_margin, 25);
    }

    #[test]
    fn limits_are_exclusive() {
        let c = cli("--engine cmd=a --engine cmd=b --openings x.epd --depth 3 --nodes 5").unwrap();
        assert!(c.limit().is_err());
        let c = cli("--engine cmd=a --engine cmd=b --openings x.epd").unwrap();
        assert!(c.limit().is_err());
        assert!(parse_sprt(&["elo0=0".into()]).is_err());
        // An engine's own clock needs the match clock for the other engine; with it, the
        // configuration gets as far as the openings (a file that does not exist here).
        let odds = "--engine cmd=a tc=2+0.02 --engine cmd=b --openings no-such-file.epd";
        for rest in ["--tc 8+0.08", "--nodes 100", "--movetime 50"] {
            let err = cli(&format!("{odds} {rest}"))
                .unwrap()
                .into_config()
                .unwrap_err();
            assert_eq!(
                err.contains("tc= needs --tc"),
                rest != "--tc 8+0.08",
                "{rest}: {err}"
            );
            assert_eq!(
                err.contains("no-such-file"),
                rest == "--tc 8+0.08",
                "{rest}: {err}"
            );
        }
        assert!(parse_sprt(&["elo0=5".into(), "elo1=0".into()]).is_err());
    }
}
