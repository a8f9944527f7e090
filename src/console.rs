//! Standard output for the engine and its command-line tools: every line is written and flushed
//! at once, and a closed stdout (a GUI that went away, `trine spsa | grep -q ...`, `trine bench |
//! head -1`) is ignored instead of panicking the way `println!` does.

use std::io::Write;

/// Writes `line` and a newline to stdout and flushes; write errors are ignored.
pub fn line(line: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

/// Writes `text` as it is (no newline added) and flushes; write errors are ignored.
pub fn text(text: &str) {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
}

/// `println!` that never panics: formats its arguments and hands them to [`line()`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::console::line("")
    };
    ($($arg:tt)*) => {
        $crate::console::line(&format!($($arg)*))
    };
}
