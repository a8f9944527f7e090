#!/usr/bin/env python3
"""Checks speed_pair.py: reading a search's output, and one engine's run end to end against a
scripted UCI engine (run by .ci/run)."""
import os
import stat
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from speed_pair import POSITIONS, last_info, run  # noqa: E402

FAKE = """#!/usr/bin/env python3
import sys
for line in sys.stdin:
    w = line.split()
    if w[:1] == ["uci"]:
        print("uciok", flush=True)
    elif w[:1] == ["isready"]:
        print("readyok", flush=True)
    elif w[:1] == ["go"]:
        print("info depth 1 nodes 10 time 1", flush=True)
        print("info string nodes are not counted here", flush=True)
        print("info depth 2 seldepth 3 score cp 5 nodes 300 nps 1000 time 7 pv e2e4", flush=True)
        print("bestmove e2e4", flush=True)
    elif w[:1] == ["quit"]:
        break
"""


def main():
    lines = [
        "info depth 1 nodes 20 time 0\n",
        "info depth 2 score cp 3 nodes 150 nps 75000 time 2 pv d2d4\n",
        "info string time 9 nodes 9\n",
        "bestmove d2d4\n",
    ]
    # The last search line with both counts is the search's total; `info string` is not one.
    assert last_info(lines) == (150, 2)
    assert last_info(lines[:1]) == (20, 0)
    assert last_info(["bestmove a2a3\n"]) == (None, None)
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
