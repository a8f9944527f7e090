#!/usr/bin/env python3
"""Checks a learn file against the engines' own logs: every position an engine said it stored
(`info string learned: ... in FEN; N positions in FILE`, as `trine-match --debug` echoes it:
`NAME > info string ...`) must be in the file. A position is its FEN's first four fields (the
file keeps one entry per position, whatever the move counters).

    check_learn_log.py TRINE LEARN_FILE LOG [LOG ...]

Prints the count per engine process, the positions logged and found, and exits 1 when a logged
position is missing or an engine printed an error."""

import re
import subprocess
import sys
from collections import Counter

LEARNED = re.compile(r"(\S+) > info string learned: .* in (.+?); \d+ positions in ")


def position(fen):
    return " ".join(fen.split()[:4])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    trine, learn_file, logs = sys.argv[1], sys.argv[2], sys.argv[3:]
    per_engine, logged, errors = Counter(), set(), []
    for log in logs:
        with open(log, errors="replace") as f:
            for line in f:
                m = LEARNED.match(line)
                if m:
                    per_engine[m.group(1)] += 1
                    logged.add(position(m.group(2)))
                elif " > info string error" in line:
                    errors.append(line.strip())
    shown = subprocess.run(
        [trine, "learn", "show", "--file", learn_file],
        capture_output=True, text=True, check=True,
    ).stdout.splitlines()
    in_file = {position(line.split(" | ")[0]) for line in shown}
    missing = sorted(logged - in_file)
    print("stored, per engine:", dict(sorted(per_engine.items())))
    print(f"stores logged: {sum(per_engine.values())}, positions: {len(logged)}, "
          f"entries in the file: {len(in_file)}, logged but missing: {len(missing)}")
    for p in missing[:10]:
        print("  missing:", p)
    print(f"engine errors: {len(errors)}")
    for e in errors[:10]:
        print("  ", e)
    sys.exit(1 if missing or errors else 0)


if __name__ == "__main__":
    main()
