//! Pooling of finished matches (`trine-pool`): reads the summary block that `trine-match`
//! prints at the end of a match (or pair counts given by hand), adds the counts of matches
//! between the same two engines — turning a match whose engines are listed the other way
//! round to the first match's point of view — and estimates Elo from the summed pentanomial
//! counts with the same formula `trine-match` uses.

use crate::matches::stats::elo::{elo_text, estimate_pentanomial, EloEstimate};
use crate::matches::stats::{Pentanomial, Wdl};

/// The counts of one finished match, from its first engine's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MatchCounts {
    /// Where the counts came from (a file name or the `--ptnml` text).
    pub source: String,
    /// The two engines' names, `None` for counts given by hand.
    pub names: Option<[String; 2]>,
    /// Single-game results, `None` when only pair counts are known.
    pub wdl: Option<Wdl>,
    /// Completed pairs.
    pub penta: Pentanomial,
}

impl MatchCounts {
    /// The same counts seen from the other engine.
    pub fn swapped(&self) -> Self {
        let mut counts = self.penta.counts;
        counts.reverse();
        Self {
            source: self.source.clone(),
            names: self.names.clone().map(|[a, b]| [b, a]),
            wdl: self.wdl.map(|w| Wdl {
                wins: w.losses,
                draws: w.draws,
                losses: w.wins,
            }),
            penta: Pentanomial::new(counts),
        }
    }

    /// The Elo estimate of these counts, `None` without a complete pair.
    pub fn estimate(&self) -> Option<EloEstimate> {
        estimate_pentanomial(&self.penta)
    }
}

/// Parses pair counts written `LL-LD-DD-WD-WW` (as `3-40-90-33-6`).
pub fn parse_ptnml(text: &str) -> Result<MatchCounts, String> {
    let parts: Vec<&str> = text.trim().split('-').collect();
    if parts.len() != 5 {
        return Err(format!(
            "'{text}': pair counts are five numbers LL-LD-DD-WD-WW"
        ));
    }
    let mut counts = [0u64; 5];
    for (c, p) in counts.iter_mut().zip(&parts) {
        *c = p
            .trim()
            .parse()
            .map_err(|_| format!("'{text}': '{p}' is not a count"))?;
    }
    Ok(MatchCounts {
        source: text.trim().to_string(),
        names: None,
        wdl: None,
        penta: Pentanomial::new(counts),
    })
}

/// Reads the last summary block of `trine-match` output: the `Results of A vs B (N games):`
/// line, the `W wins, D draws, L losses for A` line and the `Ptnml(0-2) [...]: [..]` line.
pub fn parse_summary(source: &str, text: &str) -> Result<MatchCounts, String> {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .rposition(|l| l.starts_with("Results of "))
        .ok_or_else(|| format!("{source}: no 'Results of A vs B' summary (did the match end?)"))?;
    let header = &lines[start]["Results of ".len()..];
    let names_part = header
        .rsplit_once(" (")
        .map(|(n, _)| n)
        .ok_or_else(|| format!("{source}: cannot read '{}'", lines[start]))?;
    let (a, b) = names_part
        .split_once(" vs ")
        .ok_or_else(|| format!("{source}: cannot read the names in '{}'", lines[start]))?;
    let names = [a.to_string(), b.to_string()];
    let rest = &lines[start + 1..];
    let wdl_line = rest
        .iter()
        .find(|l| l.contains(" wins, ") && l.contains(" draws, "))
        .ok_or_else(|| format!("{source}: no 'W wins, D draws, L losses' line"))?;
    let numbers: Vec<u64> = wdl_line
        .split(|c: char| !c.is_ascii_digit())
        .filter(|s| !s.is_empty())
        .take(3)
        .map(|s| s.parse().unwrap_or(0))
        .collect();
    if numbers.len() != 3 {
        return Err(format!("{source}: cannot read '{wdl_line}'"));
    }
    let wdl = Wdl {
        wins: numbers[0],
        draws: numbers[1],
        losses: numbers[2],
    };
    let ptnml_line = rest
        .iter()
        .find(|l| l.starts_with("Ptnml(0-2)"))
        .ok_or_else(|| format!("{source}: no 'Ptnml(0-2)' line"))?;
    let list = ptnml_line
        .rsplit_once(": [")
        .and_then(|(_, r)| r.split_once(']'))
        .map(|(l, _)| l)
        .ok_or_else(|| format!("{source}: cannot read '{ptnml_line}'"))?;
    let parts: Vec<&str> = list.split(',').map(str::trim).collect();
    let joined = parts.join("-");
    let mut counts = parse_ptnml(&joined).map_err(|e| format!("{source}: {e}"))?;
    counts.source = source.to_string();
    counts.names = Some(names);
    counts.wdl = Some(wdl);
    Ok(counts)
}

/// The matches turned to the first named match's point of view (the first match's when none is
/// named): one with the engines the other way round is turned round, one between other engines
/// is an error, and counts given by hand are taken as they are.
pub fn oriented(matches: &[MatchCounts]) -> Result<Vec<MatchCounts>, String> {
    let names = matches.iter().find_map(|m| m.names.clone());
    matches
        .iter()
        .map(|m| match (&names, &m.names) {
            (Some([a, b]), Some([x, y])) if a == y && b == x => Ok(m.swapped()),
            (Some([a, b]), Some([x, y])) if a != x || b != y => Err(format!(
                "{}: {x} vs {y} is not a match between {a} and {b}",
                m.source
            )),
            _ => Ok(m.clone()),
        })
        .collect()
}

/// Adds up matches already [`oriented`] to one point of view.
fn sum(matches: &[MatchCounts]) -> Result<MatchCounts, String> {
    if matches.is_empty() {
        return Err("nothing to pool: give trine-match output files or --ptnml".to_string());
    }
    let mut counts = [0u64; 5];
    let mut wdl = Some(Wdl::default());
    for m in matches {
        for (c, k) in counts.iter_mut().zip(m.penta.counts) {
            *c += k;
        }
        wdl = match (wdl, m.wdl) {
            (Some(t), Some(w)) => Some(Wdl {
                wins: t.wins + w.wins,
                draws: t.draws + w.draws,
                losses: t.losses + w.losses,
            }),
            _ => None,
        };
    }
    Ok(MatchCounts {
        source: "pooled".to_string(),
        names: matches.iter().find_map(|m| m.names.clone()),
        wdl,
        penta: Pentanomial::new(counts),
    })
}

/// Adds matches up from the first named match's point of view (see [`oriented`]).
pub fn pool(matches: &[MatchCounts]) -> Result<MatchCounts, String> {
    sum(&oriented(matches)?)
}

/// One table row: source, games, W-D-L, pair counts and Elo with its 95 % interval.
pub fn row(m: &MatchCounts) -> String {
    let c = m.penta.counts;
    let wdl = m.wdl.map_or_else(
        || "-".to_string(),
        |w| format!("{}-{}-{}", w.wins, w.draws, w.losses),
    );
    let games = m.wdl.map_or(2 * m.penta.pairs(), |w| w.games()).to_string();
    let elo = m.estimate().map_or_else(
        || "n/a".to_string(),
        |e| {
            format!(
                "{} ({} .. {})",
                elo_text(e.elo, true),
                elo_text(e.lower, true),
                elo_text(e.upper, true)
            )
        },
    );
    format!(
        "| {} | {games} | {wdl} | {}-{}-{}-{}-{} | {elo} |",
        m.source, c[0], c[1], c[2], c[3], c[4]
    )
}

/// The report: a Markdown table with one row per match and the pooled row.
pub fn report(matches: &[MatchCounts]) -> Result<Vec<String>, String> {
    let runs = oriented(matches)?;
    let pooled = sum(&runs)?;
    let mut lines = Vec::new();
    if let Some([a, b]) = &pooled.names {
        lines.push(format!("{a} vs {b}, from {a}'s point of view"));
    }
    lines
        .push("| source | games | W-D-L | pairs LL-LD-DD-WD-WW | Elo (95 %, pentanomial) |".into());
    lines.push("|---|---|---|---|---|".into());
    lines.extend(runs.iter().map(row));
    lines.push(row(&pooled));
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The end of a real trine-match run (also read by tuning/tests/pool.rs).
    const SUMMARY: &str = include_str!("../../tests/data/match-summary.log");

    #[test]
    fn reads_a_summary_and_reproduces_its_elo() {
        let m = parse_summary("h.log", SUMMARY).unwrap();
        assert_eq!(m.names, Some(["hybrid2".to_string(), "lazy2".to_string()]));
        let w = m.wdl.unwrap();
        assert_eq!((w.wins, w.draws, w.losses), (56, 231, 57));
        assert_eq!(m.penta.counts, [3, 40, 90, 33, 6]);
        let e = m.estimate().unwrap();
        assert!((e.elo - -1.0).abs() < 0.05, "{}", e.elo);
        assert!((e.lower - -21.7).abs() < 0.05, "{}", e.lower);
        assert!((e.upper - 19.7).abs() < 0.05, "{}", e.upper);
    }

    #[test]
    fn a_running_match_without_summary_is_an_error() {
        let text = "Score of a vs b: 1 - 0 - 0  [1.000] 1\n";
        assert!(parse_summary("x", text)
            .unwrap_err()
            .contains("no 'Results"));
    }

    #[test]
    fn bad_pair_counts_are_errors() {
        assert!(parse_ptnml("1-2-3-4").is_err());
        assert!(parse_ptnml("1-2-x-4-5").is_err());
        assert_eq!(
            parse_ptnml(" 0-6-12-8-2 ").unwrap().penta.counts,
            [0, 6, 12, 8, 2]
        );
    }

    #[test]
    fn pooling_sums_counts_and_gives_the_pooled_interval() {
        // The two 8+0.08 runs of docs/scaling.md: 400 games, +4.3 (-15.1 .. +23.9).
        let a = parse_ptnml("0-6-12-8-2").unwrap();
        let b = parse_summary("h.log", SUMMARY).unwrap();
        let p = pool(&[a, b]).unwrap();
        assert_eq!(p.penta.counts, [3, 46, 102, 41, 8]);
        assert_eq!(p.wdl, None, "one input has no W-D-L");
        assert_eq!(p.names, Some(["hybrid2".to_string(), "lazy2".to_string()]));
        let e = p.estimate().unwrap();
        assert!((e.elo - 4.3).abs() < 0.05, "{}", e.elo);
        assert!((e.lower - -15.1).abs() < 0.05, "{}", e.lower);
        assert!((e.upper - 23.9).abs() < 0.05, "{}", e.upper);
    }

    #[test]
    fn a_match_the_other_way_round_is_turned_round() {
        let b = parse_summary("h.log", SUMMARY).unwrap();
        let turned = SUMMARY
            .replace("hybrid2 vs lazy2 (", "lazy2 vs hybrid2 (")
            .replace(
                "56 wins, 231 draws, 57 losses for hybrid2",
                "57 wins, 231 draws, 56 losses for lazy2",
            )
            .replace("[3, 40, 90, 33, 6]", "[6, 33, 90, 40, 3]");
        let c = parse_summary("turned.log", &turned).unwrap();
        let p = pool(&[b.clone(), c]).unwrap();
        assert_eq!(p.penta.counts, [6, 80, 180, 66, 12]);
        let w = p.wdl.unwrap();
        assert_eq!((w.wins, w.draws, w.losses), (112, 462, 114));
        let lines = report(&[b]).unwrap();
        assert!(lines
            .last()
            .unwrap()
            .contains("| pooled | 344 | 56-231-57 | 3-40-90-33-6 | -1.0"));
    }

    #[test]
    fn other_engines_are_not_pooled() {
        let b = parse_summary("h.log", SUMMARY).unwrap();
        let other = parse_summary("o.log", &SUMMARY.replace("lazy2 (", "ybw2 (")).unwrap();
        assert!(pool(&[b, other])
            .unwrap_err()
            .contains("not a match between"));
        assert!(pool(&[]).is_err());
    }
}
