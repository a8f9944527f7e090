//! `trine-match`: plays two UCI engines against each other (see `trine-match --help`).
//! Exit status 0 when the match ran, 1 on a configuration or I/O error, 2 on bad flags.

use trine_tuning::matches::cli::Cli;
use trine_tuning::matches::engine::process::set_debug;
use trine_tuning::matches::runner::run_match;

fn main() {
    let cli = match Cli::parse_args(std::env::args_os()) {
        Ok(c) => c,
        Err(e) => e.exit(),
    };
    set_debug(cli.debug);
    let config = match cli.into_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("trine-match: {e}");
            std::process::exit(1);
        }
    };
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if let Err(e) = run_match(config, &mut out) {
        eprintln!("trine-match: {e}");
        std::process::exit(1);
    }
}
