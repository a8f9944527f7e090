//! The repository's top-level Makefile, as OpenBench uses it: `make EXE=<path>` leaves a
//! working engine at that path whose `bench` ends with `<nodes> nodes <nps> nps`.

mod common;

use common::*;
use std::process::Command;

#[test]
fn make_exe_builds_a_benchable_engine() {
    let dir = scratch("makefile");
    let exe = dir.join("trine-x");
    let output = Command::new("make")
        .arg(format!("EXE={}", exe.display()))
        .current_dir(repo_root())
        .output()
        .expect("run make");
    assert!(
        output.status.success(),
        "make failed:\n{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(exe.exists(), "make did not create {}", exe.display());
    let bench = Command::new(&exe).arg("bench").output().expect("run bench");
    assert!(bench.status.success());
    let stdout = String::from_utf8_lossy(&bench.stdout);
    let last = stdout.lines().last().unwrap_or_default();
    let fields: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(fields.len(), 4, "last bench line: '{last}'");
    assert!(
        fields[0].parse::<u64>().is_ok(),
        "last bench line: '{last}'"
    );
    assert_eq!(fields[1], "nodes");
    assert!(
        fields[2].parse::<u64>().is_ok(),
        "last bench line: '{last}'"
    );
    assert_eq!(fields[3], "nps");
    let _ = std::fs::remove_dir_all(&dir);
}
