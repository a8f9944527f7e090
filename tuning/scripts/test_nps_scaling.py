#!/usr/bin/env python3
"""Checks nps_scaling.py end to end against a scripted UCI engine whose nodes grow with its
`Threads` option: the scaling is the ratio of the last reports with nodes and time, `--set`
reaches the named engine only, and a malformed `--set` is refused (run by .ci/run)."""
import contextlib
import io
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import fake_uci  # noqa: E402
from nps_scaling import main as nps_scaling  # noqa: E402

GO = """
t = int(opts["Threads"])
nodes = 1000 * t if opts["Slow"] == "false" or t == 1 else 750 * t
print("info depth 1 nodes 10 time 1", flush=True)
print(f"info depth 2 score cp 5 nodes {nodes} time 10", flush=True)
print("info string nodes 1 time 1", flush=True)
print("info depth 3 currmove e2e4 currmovenumber 1", flush=True)
"""
OPTIONS = [
    "Hash type spin default 16 min 1 max 1024",
    "Threads type spin default 1 min 1 max 64",
    "Slow type check default false",
]


def main():
    with tempfile.TemporaryDirectory() as d:
        engine = fake_uci.write(d, GO, OPTIONS, {"Threads": "1", "Slow": "false"})
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            nps_scaling([f"a={engine}", f"b={engine}", "--set", "b:Slow=true",
                         "--threads", "2,4", "--movetime", "50", "--rounds", "2"])
        text = out.getvalue()
        for line in ["a threads 2: 2.000 (2.000 … 2.000)", "a threads 4: 4.000 (4.000 … 4.000)",
                     "b threads 2: 1.500 (1.500 … 1.500)", "b threads 4: 3.000 (3.000 … 3.000)",
                     "round 2 b: threads 1 100000 nps, threads 2 150000 nps, threads 4 300000 nps"]:
            assert line in text, (line, text)
        for bad in ["c:Slow=true", "b-Slow=true", "b:Slow"]:
            try:
                with contextlib.redirect_stderr(io.StringIO()):
                    nps_scaling([f"a={engine}", f"b={engine}", "--set", bad, "--rounds", "1"])
            except SystemExit as e:
                assert "NAME:OPTION=VALUE" in str(e.code), e.code
            else:
                raise AssertionError(f"--set {bad} was accepted")
    print("test_nps_scaling: ok")


if __name__ == "__main__":
    main()
