//! The UCI front end: the pure parser ([`parse`]), option handling ([`options`]), output formatting
//! ([`info`]), the engine state machine ([`engine`], which asks [`crate::learn::Learner`] what to
//! learn, and runs `bench` and `perft` as [`console_job`]s) and the input loop below, which reads stdin on the main thread while searches run on
//! their own.

pub mod console_job;
pub mod engine;
pub mod info;
pub mod options;
pub mod parse;

use std::io::{BufRead, Read};

pub use engine::{Engine, Flow};

/// Longest input line accepted, in bytes; longer lines are discarded with an error.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Reads one line of at most [`MAX_LINE_BYTES`]; `Ok(None)` at end of input.
/// A longer line is consumed to its end and returned as `Err(message)`.
pub fn read_line<R: BufRead>(
    input: &mut R,
    buf: &mut Vec<u8>,
) -> std::io::Result<Option<Result<(), String>>> {
    buf.clear();
    let n = input
        .by_ref()
        .take(MAX_LINE_BYTES as u64 + 1)
        .read_until(b'\n', buf)?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() > MAX_LINE_BYTES && buf.last() != Some(&b'\n') {
        // Skip the rest of the over-long line without storing it.
        let mut skipped = 0usize;
        loop {
            let chunk = input.fill_buf()?;
            if chunk.is_empty() {
                break;
            }
            match chunk.iter().position(|&c| c == b'\n') {
                Some(i) => {
                    input.consume(i + 1);
                    break;
                }
                None => {
                    let len = chunk.len();
                    skipped += len;
                    input.consume(len);
                }
            }
        }
        let _ = skipped;
        return Ok(Some(Err(format!(
            "input line longer than {MAX_LINE_BYTES} bytes ignored"
        ))));
    }
    Ok(Some(Ok(())))
}

/// The UCI loop on stdin/stdout; returns at `quit` or end of input.
pub fn run_loop() {
    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut engine = Engine::new();
    let mut buf = Vec::new();
    loop {
        match read_line(&mut input, &mut buf) {
            Ok(None) => break,
            Err(e) => {
                info::error(&format!("cannot read input: {e}"));
                break;
            }
            Ok(Some(Err(msg))) => info::error(&msg),
            Ok(Some(Ok(()))) => match std::str::from_utf8(&buf) {
                Ok(line) => {
                    if engine.handle_line(line) == Flow::Quit {
                        return;
                    }
                }
                Err(_) => info::error("input line is not valid UTF-8; ignored"),
            },
        }
    }
    engine.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_are_skipped_whole() {
        let mut data = vec![b'a'; MAX_LINE_BYTES * 2 + 7];
        data.extend_from_slice(b"\nisready\n");
        let mut input = std::io::Cursor::new(data);
        let mut buf = Vec::new();
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Some(Err(_)))));
        assert!(matches!(read_line(&mut input, &mut buf), Ok(Some(Ok(())))));
        assert_eq!(buf, b"isready\n");
        assert!(matches!(read_line(&mut input, &mut buf), Ok(None)));
    }
}
