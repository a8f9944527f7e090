//! [`LearnError`]: why a learn file could not be read or written, an entry's position could not be
//! rebuilt, or a text could not be imported.

use std::fmt;
use std::io;
use std::path::PathBuf;

/// A file system operation on a learn file or one of its side files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IoOp {
    /// Reading the file or its metadata.
    Read,
    /// Writing the temporary file.
    Write,
    /// Creating the file's directory.
    CreateDir,
    /// Opening (or creating) the side lock file.
    OpenLock,
    /// Renaming the temporary file over the file at `to`.
    Rename {
        /// The file the rename replaces.
        to: PathBuf,
    },
}

/// What went wrong with learning.
#[derive(Debug)]
pub enum LearnError {
    /// The path names no file (`/`, or one ending in `..`).
    NoFileName(PathBuf),
    /// A file system operation `op` on `path` failed.
    Io {
        /// What was being done.
        op: IoOp,
        /// The file or directory it was done to.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The advisory lock on the side file `lock` could not be taken.
    Locked {
        /// The side lock file.
        lock: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Something that is neither a file nor a directory is at the path; it is left alone.
    NotAFile(PathBuf),
    /// The file has a newer format version than this Trine reads; it is left untouched.
    NewerFormat {
        /// The learn file.
        path: PathBuf,
        /// Its format version.
        version: u32,
    },
    /// The file holds the scores of another evaluation; it is left untouched.
    OtherEval {
        /// The learn file.
        path: PathBuf,
        /// The evaluation version the file was written for.
        file: u32,
        /// The evaluation version in use.
        engine: u32,
    },
    /// The file is damaged and could not be moved aside, so nothing was written.
    Corrupt {
        /// What is wrong with the file.
        reason: String,
        /// Why it could not be moved aside.
        source: Box<LearnError>,
    },
    /// Renaming a damaged file (or directory) at `path` aside to `to` failed.
    Quarantine {
        /// The damaged file.
        path: PathBuf,
        /// The name it was to get.
        to: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// Every name tried for moving the damaged file at the path aside was taken.
    NoQuarantineName(PathBuf),
    /// A learned entry's stored position cannot be rebuilt.
    BadEntry {
        /// The entry's key.
        key: u64,
        /// What is wrong with it.
        reason: String,
    },
    /// The text to import is not text (it contains NUL bytes).
    NotText,
    /// An origin name that is not `search`, `imported` or `human`.
    UnknownOrigin(String),
}

impl fmt::Display for LearnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LearnError::NoFileName(path) => write!(
                f,
                "learn file path '{}' does not name a file",
                path.display()
            ),
            LearnError::Io { op, path, source } => {
                let path = path.display();
                match op {
                    IoOp::Read => write!(f, "cannot read {path}: {source}"),
                    IoOp::Write => write!(f, "cannot write {path}: {source}"),
                    IoOp::CreateDir => write!(f, "cannot create directory {path}: {source}"),
                    IoOp::OpenLock => write!(f, "cannot open lock file {path}: {source}"),
                    IoOp::Rename { to } => {
                        write!(f, "cannot rename {path} to {}: {source}", to.display())
                    }
                }
            }
            LearnError::Locked { lock, source } => {
                write!(f, "cannot lock {}: {source}", lock.display())
            }
            LearnError::NotAFile(path) => write!(
                f,
                "{} is not a regular file; not touching it",
                path.display()
            ),
            LearnError::NewerFormat { path, version } => write!(
                f,
                "learn file {} has format version {version}; this Trine reads version \
                 {} — upgrade Trine or use another file",
                path.display(),
                super::FORMAT_VERSION
            ),
            LearnError::OtherEval { path, file, engine } => write!(
                f,
                "learn file {} was written for evaluation version {file}; this Trine's evaluation \
                 is version {engine}, so its scores do not apply — use another file (or delete \
                 that one)",
                path.display()
            ),
            LearnError::Corrupt { reason, source } => {
                write!(
                    f,
                    "damaged learn file ({reason}), not overwritten: {source}"
                )
            }
            LearnError::Quarantine { path, to, source } => write!(
                f,
                "could not move {} to {}: {source}",
                path.display(),
                to.display()
            ),
            LearnError::NoQuarantineName(path) => write!(
                f,
                "could not find a free name to move {} aside",
                path.display()
            ),
            LearnError::BadEntry { key, reason } => write!(f, "learn entry {key:016x}: {reason}"),
            LearnError::NotText => f.write_str("not an EPD text file (it contains NUL bytes)"),
            LearnError::UnknownOrigin(name) => write!(
                f,
                "unknown origin '{name}' (expected search, imported or human)"
            ),
        }
    }
}

impl std::error::Error for LearnError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LearnError::Io { source, .. }
            | LearnError::Locked { source, .. }
            | LearnError::Quarantine { source, .. } => Some(source),
            LearnError::Corrupt { source, .. } => Some(source.as_ref()),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_file_and_the_cause() {
        let denied = || io::Error::new(io::ErrorKind::PermissionDenied, "denied");
        let e = LearnError::Io {
            op: IoOp::Rename {
                to: PathBuf::from("a.learn"),
            },
            path: PathBuf::from("a.learn.tmp-7"),
            source: denied(),
        };
        assert_eq!(
            e.to_string(),
            "cannot rename a.learn.tmp-7 to a.learn: denied"
        );
        let e = LearnError::Corrupt {
            reason: "bad magic".into(),
            source: Box::new(LearnError::NoQuarantineName(PathBuf::from("x"))),
        };
        assert_eq!(
            e.to_string(),
            "damaged learn file (bad magic), not overwritten: could not find a free name to move \
             x aside"
        );
        assert!(std::error::Error::source(&e).is_some());
        let e = LearnError::BadEntry {
            key: 0xab,
            reason: "cannot unpack: x".into(),
        };
        assert_eq!(
            e.to_string(),
            "learn entry 00000000000000ab: cannot unpack: x"
        );
    }
}
