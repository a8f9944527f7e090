//! How to start an engine: command, arguments, working directory, display name and the UCI
//! options to set, parsed from `key=value` tokens as given to `--engine` / `--each`.

use std::path::PathBuf;

use crate::matches::tc::TimeControl;

/// Everything needed to start and configure one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    /// Name used in reports and PGN headers.
    pub name: String,
    /// Program to run.
    pub cmd: PathBuf,
    /// Arguments passed to the program.
    pub args: Vec<String>,
    /// Working directory, if not the current one.
    pub dir: Option<PathBuf>,
    /// UCI options (`setoption name N value V`), in the order given, each name once.
    pub options: Vec<(String, String)>,
    /// This engine's own clock (`tc=2+0.02`), in place of the match's `--tc`: time odds with
    /// a real clock, so the engine sees, spends and can lose on exactly that time.
    pub tc: Option<TimeControl>,
}

impl EngineConfig {
    /// Parses `cmd=PATH name=NAME arg=A dir=D tc=TC option.NAME=VALUE proto=uci` tokens.
    /// `defaults` (from `--each`) are applied first, so the engine's own tokens override them.
    /// Without `name=` the file name of the command is used.
    pub fn parse(tokens: &[String], defaults: &[String]) -> Result<Self, String> {
        let mut cmd = None;
        let mut name = None;
        let mut args = Vec::new();
        let mut dir = None;
        let mut tc = None;
        let mut options: Vec<(String, String)> = Vec::new();
        for token in defaults.iter().chain(tokens) {
            let (key, value) = token
                .split_once('=')
                .ok_or_else(|| format!("engine setting '{token}' is not key=value"))?;
            match key {
                "cmd" => cmd = Some(PathBuf::from(value)),
                "name" => name = Some(value.to_string()),
                "arg" => args.push(value.to_string()),
                "dir" => dir = Some(PathBuf::from(value)),
                "tc" => tc = Some(TimeControl::parse(value)?),
                "proto" if value == "uci" => {}
                "proto" => {
                    return Err(format!(
                        "protocol '{value}' is not supported (only uci; xboard is not implemented)"
                    ))
                }
                _ => {
                    let Some(opt) = key.strip_prefix("option.") else {
                        return Err(format!("unknown engine setting '{key}'"));
                    };
                    if opt.is_empty() {
                        return Err(format!("empty option name in '{token}'"));
                    }
                    match options.iter_mut().find(|(n, _)| n == opt) {
                        Some(slot) => slot.1 = value.to_string(),
                        None => options.push((opt.to_string(), value.to_string())),
                    }
                }
            }
        }
        let cmd: PathBuf = cmd.ok_or("an engine needs cmd=PATH")?;
        let name = name.unwrap_or_else(|| {
            cmd.file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| cmd.display().to_string())
        });
        Ok(Self {
            name,
            cmd,
            args,
            dir,
            options,
            tc,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_and_overrides_defaults() {
        let c = EngineConfig::parse(
            &toks("cmd=/usr/games/stockfish option.Hash=32 arg=-x"),
            &toks("option.Hash=16 option.Threads=1"),
        )
        .unwrap();
        assert_eq!(c.name, "stockfish");
        assert_eq!(c.args, ["-x"]);
        assert_eq!(
            c.options,
            [
                ("Hash".to_string(), "32".to_string()),
                ("Threads".to_string(), "1".to_string())
            ]
        );
        // One shell word may hold a space: the option name keeps it.
        let named = EngineConfig::parse(
            &[
                "cmd=./e".to_string(),
                "name=Dev".into(),
                "option.Move Overhead=5".into(),
            ],
            &[],
        )
        .unwrap();
        assert_eq!(named.name, "Dev");
        assert_eq!(named.options[0].0, "Move Overhead");
        assert_eq!(named.tc, None);
        // An engine's own clock, e.g. for time odds; it overrides one given by `--each`.
        let odds = EngineConfig::parse(&toks("cmd=./e tc=2+0.02"), &toks("tc=8+0.08")).unwrap();
        assert_eq!(odds.tc.map(|t| t.to_string()).as_deref(), Some("2+0.02"));
    }

    #[test]
    fn rejects_bad_tokens() {
        assert!(EngineConfig::parse(&toks("name=x"), &[]).is_err());
        assert!(EngineConfig::parse(&toks("cmd=x bogus"), &[]).is_err());
        assert!(EngineConfig::parse(&toks("cmd=x colour=red"), &[]).is_err());
        assert!(EngineConfig::parse(&toks("cmd=x proto=xboard"), &[]).is_err());
        assert!(EngineConfig::parse(&toks("cmd=x tc=fast"), &[]).is_err());
        assert!(EngineConfig::parse(&toks("cmd=x tc=0"), &[]).is_err());
    }
}
