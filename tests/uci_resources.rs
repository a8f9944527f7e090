//! Long console commands and memory, end to end: `perft` and `bench` typed at the prompt run
//! beside the input loop (`isready` is answered, `stop`, `go` and `quit` end them), and a `Hash`
//! change frees the old table before it allocates the new one.

use std::time::Duration;

use shakmaty::Chess;

mod engine_process;
use engine_process::uci::{is_bestmove, TIMEOUT};
use engine_process::Engine;

/// Far longer than any test waits: only a job that runs beside the input loop lets these pass.
const LONG_PERFT: &str = "perft 9";
const LONG_BENCH: &str = "bench 40";
/// What a prompt answer may take while a console job keeps the cores busy.
const PROMPT: Duration = Duration::from_secs(3);

#[test]
fn perft_at_the_prompt_answers_isready_and_stops_on_stop() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(LONG_PERFT);
    engine.sync(PROMPT);
    engine.send("stop");
    engine.until_match(|l| l == "info string perft stopped", PROMPT);
    engine.sync(PROMPT);
    // A short perft still runs to its end and prints its total.
    engine.send("perft 3");
    engine.until_match(|l| l == "Nodes searched: 8902", TIMEOUT);
    engine.send("stop");
    engine.until_match(
        |l| l == "info string error: stop: no search is running",
        PROMPT,
    );
}

#[test]
fn go_ends_a_running_perft_and_searches() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(LONG_PERFT);
    engine.sync(PROMPT);
    engine.send("position startpos");
    let out = engine.search("go depth 4", TIMEOUT);
    if !out.lines.iter().any(|l| l == "info string perft stopped") {
        engine.fail("go did not stop the perft");
    }
    engine.check_search(&Chess::default(), &out);
}

#[test]
fn quit_ends_a_running_bench_at_once() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(LONG_BENCH);
    engine.sync(PROMPT);
    engine.send("quit");
    let status = engine.wait_exit(PROMPT);
    assert!(status.success(), "{status:?}");
}

#[test]
fn a_bench_is_stopped_by_another_and_by_stop() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send(LONG_BENCH);
    engine.sync(PROMPT);
    engine.send(LONG_BENCH);
    let mut lines = engine.until_match(|l| l == "info string bench stopped", PROMPT);
    engine.send("stop");
    lines.extend(engine.until_match(|l| l == "info string bench stopped", PROMPT));
    lines.extend(engine.sync(PROMPT));
    if lines.iter().any(|l| is_bestmove(l)) {
        engine.fail("a bench printed a bestmove");
    }
}

/// The process's peak virtual memory, from `/proc` (Linux), in MiB.
#[cfg(target_os = "linux")]
fn vm_peak_mb(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc status");
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmPeak:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .expect("a VmPeak line");
    kb / 1024
}

#[cfg(target_os = "linux")]
#[test]
fn a_hash_change_frees_the_old_table_first() {
    let mut engine = Engine::ready(TIMEOUT);
    engine.send("setoption name Hash value 256");
    engine.sync(TIMEOUT);
    // A search first, so that the threads have held the table.
    engine.send("position startpos");
    engine.search("go depth 6", TIMEOUT);
    let before = vm_peak_mb(engine.pid());
    engine.send("setoption name Hash value 512");
    engine.sync(TIMEOUT);
    let after = vm_peak_mb(engine.pid());
    // Old first: the peak grows by 512 - 256 MB; both at once would add the whole 512 MB.
    if after.saturating_sub(before) >= 384 {
        engine.fail(&format!(
            "the peak grew from {before} to {after} MB: both tables were held at once"
        ));
    }
    let out = engine.search("go depth 6", TIMEOUT);
    engine.check_search(&Chess::default(), &out);
}
