#!/usr/bin/env python3
"""Nps scaling of several UCI engines, measured side by side in one run, alternated.

Each engine runs one process for each thread count, alive for the whole run. Every round takes
the positions in turn, and each position is searched for a fixed time by every engine at every
thread count (`ucinewgame` before each search) before the next position: a machine whose speed
drifts over seconds to minutes (a shared virtual machine) then puts the same drift on each
engine's one-thread and many-thread searches. The engines rotate and the thread counts run up and
down from search to search. An engine's nps at a thread count is its summed nodes over its summed
time, each search's taken from its last report with both; its scaling is that nps over its
one-thread nps, over all rounds, with the smallest and largest of the single rounds' ratios.

    nps_scaling.py NAME=CMD... [--threads 1,2] [--movetime MS] [--rounds N] [--hash MB]
                   [--set NAME:OPTION=VALUE]...

`--set` gives one engine a UCI option (repeat it; e.g. `--set "hybrid:SMP Mode=hybrid"`), so that
one binary can run as several engines. Needs python-chess (`pip install chess`).
"""

import argparse
import sys

try:
    import chess
    import chess.engine
except ImportError:
    sys.exit("nps_scaling.py needs python-chess: python3 -m pip install chess")

from speed_pair import POSITIONS, last_counts


def parse_engines(specs, sets):
    """`NAME=CMD` specs and `NAME:OPTION=VALUE` settings to a list of (name, cmd, options)."""
    engines = []
    for spec in specs:
        name, sep, cmd = spec.partition("=")
        if not sep or not name or not cmd:
            sys.exit(f"engine '{spec}' is not NAME=CMD")
        engines.append((name, cmd, {}))
    names = {name: options for name, _, options in engines}
    for s in sets:
        name, sep, rest = s.partition(":")
        option, eq, value = rest.partition("=")
        if not sep or not eq or name not in names:
            sys.exit(f"--set '{s}' is not NAME:OPTION=VALUE for a named engine")
        names[name][option] = value
    return engines


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("engines", nargs="+", metavar="NAME=CMD")
    ap.add_argument("--threads", default="1,2", help="thread counts (default 1,2; 1 is added)")
    ap.add_argument("--movetime", type=int, default=4000, help="ms a search (default 4000)")
    ap.add_argument("--rounds", type=int, default=4, help="default 4")
    ap.add_argument("--hash", type=int, default=64, help="MB (default 64)")
    ap.add_argument("--set", action="append", default=[], metavar="NAME:OPTION=VALUE")
    args = ap.parse_args(argv)
    engines = parse_engines(args.engines, args.set)
    counts = sorted({1} | {int(t) for t in args.threads.split(",")})
    # One process per engine and thread count, alive for the whole run.
    procs = {}
    try:
        for name, cmd, options in engines:
            for t in counts:
                procs[(name, t)] = chess.engine.SimpleEngine.popen_uci(cmd)
                procs[(name, t)].configure(dict(options, Threads=t, Hash=args.hash))
        totals = {key: [[0, 0] for _ in range(args.rounds)] for key in procs}
        limit = chess.engine.Limit(time=args.movetime / 1000)
        for r in range(args.rounds):
            for p, fen in enumerate(POSITIONS):
                k = r * len(POSITIONS) + p
                shift = k % len(engines)
                threads = counts if k % 2 == 0 else counts[::-1]
                for name, _, _ in engines[shift:] + engines[:shift]:
                    for t in threads:
                        nodes, ms = last_counts(procs[(name, t)], fen, limit)
                        totals[(name, t)][r][0] += nodes
                        totals[(name, t)][r][1] += ms
            for name, _, _ in engines:
                line = []
                for t in counts:
                    nodes, ms = totals[(name, t)][r]
                    line.append(f"threads {t} {nodes * 1000 // max(ms, 1)} nps")
                print(f"round {r + 1} {name}: " + ", ".join(line), flush=True)
    finally:
        for uci in procs.values():
            uci.quit()

    def nps(name, t, rounds):
        nodes = sum(totals[(name, t)][r][0] for r in rounds)
        ms = sum(totals[(name, t)][r][1] for r in rounds)
        return nodes * 1000 / max(ms, 1)

    print(f"{len(POSITIONS)} positions, {args.movetime} ms a search, Hash {args.hash}, "
          f"{args.rounds} rounds; nps scaling over all rounds (min … max of the rounds):")
    for name, _, _ in engines:
        for t in counts[1:]:
            every = range(args.rounds)
            each = [nps(name, t, [r]) / max(nps(name, 1, [r]), 1) for r in every]
            print(f"{name} threads {t}: {nps(name, t, every) / max(nps(name, 1, every), 1):.3f} "
                  f"({min(each):.3f} … {max(each):.3f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
