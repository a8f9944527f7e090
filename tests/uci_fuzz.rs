//! The UCI loop under a random stream of commands while searches run: `go` in every form
//! interleaved with `stop`, `ponderhit`, `position`, `setoption` (threads, hash, modes), `perft`,
//! `bench`, `ucinewgame`, and garbage, with up to 4 threads. The engine must answer every `isready`
//! at once, give exactly one `bestmove` for every `go`, never crash, and play a legal move at the end.

use std::time::Duration;

use shakmaty::Chess;
use trine::rng::Rng;

mod engine_process;
use engine_process::uci::{is_bestmove, TIMEOUT};
use engine_process::Engine;

/// How long an answer to `isready` may take, searches or not.
const PROMPT: Duration = Duration::from_secs(5);

fn pick<'a>(rng: &mut Rng, items: &[&'a str]) -> &'a str {
    items[rng.below(items.len())]
}

/// A `go` the parser accepts, so that it must be answered by exactly one `bestmove`.
fn random_go(rng: &mut Rng) -> String {
    match rng.below(9) {
        0 => format!("go depth {}", 1 + rng.below(6)),
        1 => format!("go movetime {}", rng.below(40)),
        2 => "go infinite".to_string(),
        3 => format!("go ponder wtime {} btime 500", rng.below(500)),
        4 => format!(
            "go wtime {} btime {} winc {} binc 5",
            rng.below(3000),
            rng.below(3000),
            rng.below(30)
        ),
        5 => format!("go nodes {}", rng.below(20_000)),
        6 => format!("go mate {} movetime 50", 1 + rng.below(3)),
        7 => "go searchmoves e2e4 d2d4 a7a5 movetime 20".to_string(),
        _ => "go".to_string(),
    }
}

/// Anything else: commands that change state, commands that are wrong, and noise.
fn random_other(rng: &mut Rng) -> String {
    const POSITIONS: [&str; 7] = [
        "position startpos",
        "position startpos moves e2e4 e7e5 g1f3",
        "position startpos moves e2e4 e2e4",
        "position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
        "position fen 8/8/8/8/8/8/8/8 w - - 0 1",
        "position fen 7k/8/8/8/8/8/8/K7 w - - 0 1 moves a1b2",
        "position",
    ];
    const OPTIONS: [&str; 14] = [
        "setoption name Threads value 4",
        "setoption name Threads value 1",
        "setoption name Threads value 3",
        "setoption name Hash value 1",
        "setoption name Hash value 32",
        "setoption name SMP Mode value ybw",
        "setoption name SMP Mode value hybrid",
        "setoption name SMP Mode value lazy",
        "setoption name SMP Hybrid Margin value 9",
        "setoption name SMP Split Depth value 3",
        "setoption name MultiPV value 3",
        "setoption name MultiPV value 1",
        "setoption name Clear Hash",
        "setoption name Threads value -1",
    ];
    // No `isready`: the test's own, answered in order, tells it that everything before was read.
    const OTHERS: [&str; 13] = [
        "stop",
        "ponderhit",
        "ucinewgame",
        "perft 9",
        "perft 3",
        "bench 30",
        "d",
        "eval",
        "debug on",
        "go depth x",
        "go wtime",
        "bestmove e2e4",
        "\u{1b}[2J ♞ 日本語",
    ];
    match rng.below(3) {
        0 => pick(rng, &POSITIONS).to_string(),
        1 => pick(rng, &OPTIONS).to_string(),
        _ => pick(rng, &OTHERS).to_string(),
    }
}

#[test]
fn a_random_command_stream_with_searches_running_is_survived() {
    let mut rng = Rng::new(0x5EED_F022);
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name Threads value 4");
    let mut gos = 0usize;
    let mut bestmoves = 0usize;
    for step in 0..1500 {
        let line = if rng.below(3) == 0 {
            random_go(&mut rng)
        } else {
            random_other(&mut rng)
        };
        // A `go` with a bad or missing value is still a search (the field is ignored, with an
        // error line).
        if line == "go" || line.starts_with("go ") {
            gos += 1;
        }
        engine.send(&line);
        if step % 8 == 7 {
            let lines = engine.sync(PROMPT);
            bestmoves += lines.iter().filter(|l| is_bestmove(l)).count();
        }
    }
    // Whatever still searches (infinite, ponder) answers `stop`; bounded searches end alone.
    engine.send("stop");
    let lines = engine.sync(PROMPT);
    bestmoves += lines.iter().filter(|l| is_bestmove(l)).count();
    if bestmoves != gos {
        engine.fail(&format!("{gos} go commands, {bestmoves} bestmoves"));
    }
    engine.send("setoption name Threads value 4");
    engine.send("position startpos");
    let out = engine.search("go depth 6", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
    engine.quit();
}
