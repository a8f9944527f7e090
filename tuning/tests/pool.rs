//! `trine-pool` from the command line: reads a trine-match summary from a file, pools it with
//! pair counts given by hand, and refuses inputs it cannot pool without crashing.

use std::process::Command;

#[test]
fn pools_a_file_with_pair_counts() {
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let log = data.join("match-summary.log");
    let out = Command::new(env!("CARGO_BIN_EXE_trine-pool"))
        .arg(&log)
        .args(["--ptnml", "0-6-12-8-2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("| 344 | 56-231-57 | 3-40-90-33-6 | -1.0 (-21.7 .. +19.7) |"),
        "{text}"
    );
    assert!(
        text.contains("| pooled | 400 | - | 3-46-102-41-8 | +4.3 (-15.1 .. +23.9) |"),
        "{text}"
    );

    let missing = Command::new(env!("CARGO_BIN_EXE_trine-pool"))
        .arg(data.join("absent.log"))
        .output()
        .unwrap();
    assert_eq!(missing.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("cannot read"));

    let bad = Command::new(env!("CARGO_BIN_EXE_trine-pool"))
        .args(["--ptnml", "1-2-3"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
}
