//! The text a match prints: one line per finished game, the running score line, the
//! statistics block (Elo ± 95 % from the pentanomial distribution, LOS, draw ratio, pair
//! counts, SPRT state, each engine's overruns) and the final summary with each engine's
//! failures.

use super::tally::Tally;
use crate::matches::game::GameRecord;
use crate::matches::stats::elo::{
    all_lost_upper_bound, estimate_pentanomial, estimate_trinomial, normalized_elo,
};
use crate::matches::stats::sprt::Sprt;

fn elo_text(v: f64) -> String {
    crate::matches::stats::elo::elo_text(v, false)
}

/// `Finished game 3 (A vs B): 1-0 {White mates}`.
pub fn finished_line(index: usize, game: &GameRecord) -> String {
    format!(
        "Finished game {} ({} vs {}): {} {{{}}}",
        index + 1,
        game.white,
        game.black,
        game.result.pgn_result(),
        game.result.reason
    )
}

/// `Score of A vs B: W - L - D  [score] games`, A's point of view.
pub fn score_line(names: &[String; 2], t: &Tally) -> String {
    format!(
        "Score of {} vs {}: {} - {} - {}  [{:.3}] {}",
        names[0],
        names[1],
        t.wdl.wins,
        t.wdl.losses,
        t.wdl.draws,
        t.wdl.score().unwrap_or(0.5),
        t.games()
    )
}

/// The statistics block: Elo, pair counts, each engine's overruns and, with `sprt`, the test
/// state.
pub fn stats_lines(names: &[String; 2], t: &Tally, sprt: Option<&Sprt>) -> Vec<String> {
    let mut lines = Vec::new();
    match estimate_pentanomial(&t.penta) {
        Some(e) => {
            let nelo =
                normalized_elo(&t.penta).map_or_else(|| "n/a".to_string(), |v| format!("{v:.1}"));
            lines.push(format!(
                "Elo: {} +/- {} (95%, pentanomial; interval {} to {}), nElo: {nelo}, LOS: {:.1} %, DrawRatio: {:.1} %",
                elo_text(e.elo),
                elo_text(e.error()),
                elo_text(e.lower),
                elo_text(e.upper),
                e.los * 100.0,
                t.wdl.draw_ratio().unwrap_or(0.0) * 100.0
            ));
        }
        None => {
            if let Some(e) = estimate_trinomial(&t.wdl) {
                lines.push(format!("Elo: {} (no complete pair yet)", elo_text(e.elo)));
            }
        }
    }
    let c = t.penta.counts;
    lines.push(format!(
        "Ptnml(0-2) [LL, LD, DD+WL, WD, WW]: [{}, {}, {}, {}, {}] ({} pairs)",
        c[0],
        c[1],
        c[2],
        c[3],
        c[4],
        t.penta.pairs()
    ));
    lines.push(overruns_line(names, t));
    if t.games() > 0 && (t.wdl.wins == t.games() || t.wdl.losses == t.games()) {
        let bound = all_lost_upper_bound(t.games());
        let (who, rel, b) = if t.wdl.losses == t.games() {
            ("lost", "<=", bound)
        } else {
            ("won", ">=", -bound)
        };
        lines.push(format!(
            "All {} games {who} by the first engine: Elo {rel} {b:.0} at 95 % confidence",
            t.games()
        ));
    }
    if let Some(s) = sprt {
        let llr = s.llr(&t.penta);
        lines.push(format!(
            "SPRT: elo0={:.2} elo1={:.2} alpha={} beta={} (logistic Elo, pentanomial GSPRT): LLR {:.3} [{:.3}, {:.3}] {}",
            s.elo0,
            s.elo1,
            s.alpha,
            s.beta,
            llr,
            s.lower_bound(),
            s.upper_bound(),
            s.decide(llr)
        ));
    }
    lines
}

/// `Overruns (within the margin): A 3 (max 4 ms), B 0`: moves that ended past the clock (or
/// movetime) but within the margin, so they cost no game; time losses are counted apart.
pub fn overruns_line(names: &[String; 2], t: &Tally) -> String {
    format!(
        "Overruns (within the margin): {} {}, {} {}",
        names[0], t.overruns[0], names[1], t.overruns[1]
    )
}

/// The final summary.
pub fn summary(names: &[String; 2], t: &Tally, sprt: Option<&Sprt>, stop: Option<&str>) -> String {
    let mut out = vec![
        "--------------------------------------------------".to_string(),
        format!(
            "Results of {} vs {} ({} games):",
            names[0],
            names[1],
            t.games()
        ),
        format!(
            "{} wins, {} draws, {} losses for {}: score {:.1}/{} ({:.1} %)",
            t.wdl.wins,
            t.wdl.draws,
            t.wdl.losses,
            names[0],
            t.wdl.points(),
            t.games(),
            t.wdl.score().unwrap_or(0.5) * 100.0
        ),
        format!(
            "White wins {}, Black wins {}, draws {}",
            t.by_color[0], t.by_color[1], t.by_color[2]
        ),
    ];
    out.extend(stats_lines(names, t, sprt));
    let endings: Vec<String> = t
        .endings
        .iter()
        .map(|(k, v)| format!("{}: {v}", k.label()))
        .collect();
    out.push(format!("Endings: {}", endings.join(", ")));
    for (name, f) in names.iter().zip(&t.failures) {
        out.push(format!(
            "{name}: time losses {}, illegal moves {}, crashes {}, stalls {}",
            f.time_losses, f.illegal_moves, f.crashes, f.stalls
        ));
    }
    if let Some(reason) = stop {
        out.push(format!("Stopped early: {reason}"));
    }
    out.push("--------------------------------------------------".to_string());
    out.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::tc::Overruns;

    #[test]
    fn overruns_in_the_statistics_and_the_summary() {
        let names = ["A".to_string(), "B".to_string()];
        let mut t = Tally::default();
        t.overruns[0] = Overruns {
            count: 3,
            max_ms: 4,
        };
        let line = "Overruns (within the margin): A 3 (max 4 ms), B 0";
        assert!(stats_lines(&names, &t, None).iter().any(|l| l == line));
        assert_eq!(summary(&names, &t, None, None).matches(line).count(), 1);
    }
}
