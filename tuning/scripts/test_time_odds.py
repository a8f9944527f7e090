#!/usr/bin/env python3
"""Checks time_odds.py: the scaling of `go` lines, and the wrapper end to end (run by .ci/run)."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from time_odds import scale_go  # noqa: E402


def main():
    assert scale_go("go wtime 8000 btime 7000 winc 80 binc 80\n", 0.5) == (
        "go wtime 4000 btime 3500 winc 40 binc 40\n"
    )
    # Other words and other commands pass unchanged; a clock never drops below 1 ms.
    assert scale_go("go movetime 1000 depth 5\n", 0.5) == "go movetime 1000 depth 5\n"
    assert scale_go("go wtime 1 btime 3 movestogo 7\n", 0.25) == "go wtime 1 btime 1 movestogo 7\n"
    assert scale_go("position startpos moves e2e4\n", 0.5) == "position startpos moves e2e4\n"
    assert scale_go("go wtime\n", 0.5) == "go wtime\n"
    # End to end: an "engine" that echoes its input sees the scaled clock.
    echo = [sys.executable, "-c", "import sys\nfor l in sys.stdin: print(l, end='', flush=True)"]
    out = subprocess.run(
        [sys.executable, os.path.join(HERE, "time_odds.py"), "0.5", *echo],
        input="uci\ngo wtime 1000 btime 2000\nquit\n",
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout
    assert out == "uci\ngo wtime 500 btime 1000\nquit\n", out
    print("time_odds.py: ok")


if __name__ == "__main__":
    main()
