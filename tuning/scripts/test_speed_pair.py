#!/usr/bin/env python3
"""Checks speed_pair.py end to end against a scripted UCI engine: a search's total is its last
report with nodes and time, and `info string` lines do not count (run by .ci/run)."""
import os
import stat
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speed_pair import POSITIONS, run  # noqa: E402

FAKE = """#!/usr/bin/env python3
import sys
for line in sys.stdin:
    w = line.split()
    if w[:1] == ["uci"]:
        print("id name fake", flush=True)
        print("option name Hash type spin default 16 min 1 max 1024", flush=True)
        print("uciok", flush=True)
    elif w[:1] == ["isready"]:
        print("readyok", flush=True)
    elif w[:1] == ["go"]:
        print("info depth 1 nodes 10 time 1", flush=True)
        print("info string nodes are not counted here", flush=True)
        print("info depth 2 seldepth 3 score cp 5 nodes 300 nps 1000 time 7", flush=True)
        print("info string time 9 nodes 9", flush=True)
        print("bestmove 0000", flush=True)
    elif w[:1] == ["quit"]:
        break
"""


def main():
    with tempfile.TemporaryDirectory() as d:
        engine = os.path.join(d, "fake-engine")
        with open(engine, "w") as f:
            f.write(FAKE.replace("#!/usr/bin/env python3", "#!" + sys.executable))
        os.chmod(engine, os.stat(engine).st_mode | stat.S_IEXEC)
        out = []
        run(engine, 64, 5, out)
        assert out == [300 * len(POSITIONS), 7 * len(POSITIONS)], out
    print("test_speed_pair: ok")


if __name__ == "__main__":
    main()
