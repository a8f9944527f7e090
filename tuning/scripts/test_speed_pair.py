#!/usr/bin/env python3
"""Checks speed_pair.py end to end against a scripted UCI engine: a search's total is its last
report with nodes and time, and `info string` lines do not count (run by .ci/run)."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fake_uci  # noqa: E402
from speed_pair import POSITIONS, run  # noqa: E402

GO = """
print("info depth 1 nodes 10 time 1", flush=True)
print("info string nodes are not counted here", flush=True)
print("info depth 2 seldepth 3 score cp 5 nodes 300 nps 1000 time 7", flush=True)
print("info string time 9 nodes 9", flush=True)
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        engine = fake_uci.write(d, GO)
        out = []
        run(engine, 64, 5, out)
        assert out == [300 * len(POSITIONS), 7 * len(POSITIONS)], out
    print("test_speed_pair: ok")


if __name__ == "__main__":
    main()
