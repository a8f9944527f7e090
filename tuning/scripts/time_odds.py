#!/usr/bin/env python3
"""Time odds for a UCI engine: passes every line to ENGINE unchanged, except that the clock of a
`go` command (wtime, btime, winc, binc) is multiplied by FACTOR. The engine then spends its time as
if its clock were FACTOR times the match's, and the match clock never flags it (FACTOR <= 1).

    time_odds.py FACTOR ENGINE [ARG ...]

In a match: `trine-match --engine cmd=time_odds.py arg=0.5 arg=target/release/trine name=half ...`
plays that engine at half the time control of the other (docs/scaling.md).
"""
import subprocess
import sys

CLOCK = ("wtime", "btime", "winc", "binc")


def scale_go(line, factor):
    """The line with its clock scaled when it is a `go` command (at least 1 ms), else unchanged."""
    t = line.split()
    if not t or t[0] != "go":
        return line
    for i in range(1, len(t) - 1):
        if t[i] in CLOCK and t[i + 1].lstrip("-").isdigit():
            t[i + 1] = str(max(1, int(int(t[i + 1]) * factor)))
    return " ".join(t) + "\n"


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    factor = float(sys.argv[1])
    engine = subprocess.Popen(sys.argv[2:], stdin=subprocess.PIPE, text=True, bufsize=1)
    for line in sys.stdin:
        engine.stdin.write(scale_go(line, factor))
        engine.stdin.flush()
        if line.split()[:1] == ["quit"]:
            break
    engine.stdin.close()
    sys.exit(engine.wait())


if __name__ == "__main__":
    main()
