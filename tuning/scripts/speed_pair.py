#!/usr/bin/env python3
"""Search speed of two engine builds side by side, at any hash size, over UCI.

Both builds search the same four positions to the same fixed depth (1 thread, `ucinewgame`
before each), at the same time, one on each core, so that both see the same machine; the
order they are started in alternates from pair to pair. Builds that differ only in speed search
the same nodes, which the script checks. `trine bench` has a fixed 16 MB table; this measures
the sizes users give `Hash`.

    speed_pair.py A B [--hash MB] [--depth N] [--pairs N]

Prints each pair's nps and B/A, then the ratio of the summed nps and the mean of the ratios.
Needs python-chess (`pip install chess`), the UCI client the tests use too.
"""

import argparse
import sys
import threading

try:
    import chess
    import chess.engine
except ImportError:
    sys.exit("speed_pair.py needs python-chess: python3 -m pip install chess")

POSITIONS = [
    "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
]


def last_counts(uci, fen, limit):
    """One search of `fen` under `limit` in a new game (so `ucinewgame` comes first); the nodes
    and milliseconds of the search's last report that has both (`info string` lines aside)."""
    last = None
    with uci.analysis(chess.Board(fen), limit, game=object()) as analysis:
        for info in analysis:
            if "nodes" in info and "time" in info:
                last = info
    if last is None:
        raise ValueError(f"no info line with nodes and time from a search of {fen}")
    return last["nodes"], round(last["time"] * 1000)


def run(engine, hash_mb, depth, out):
    """Searches every position with `engine` to `depth`; stores the summed nodes and
    milliseconds of the searches' last reports in `out`."""
    uci = chess.engine.SimpleEngine.popen_uci(engine)
    try:
        uci.configure({"Hash": hash_mb})
        nodes = ms = 0
        for fen in POSITIONS:
            n, t = last_counts(uci, fen, chess.engine.Limit(depth=depth))
            nodes += n
            ms += t
    finally:
        uci.quit()
    out.extend([nodes, ms])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("a")
    ap.add_argument("b")
    ap.add_argument("--hash", type=int, default=16, help="MB (default 16)")
    ap.add_argument("--depth", type=int, default=16, help="default 16")
    ap.add_argument("--pairs", type=int, default=8, help="default 8")
    args = ap.parse_args()
    ratios, sums = [], [0, 0]
    # Indexed by position, so that a build can be compared with itself.
    engines = (args.a, args.b)
    for i in range(args.pairs):
        results = ([], [])
        order = [0, 1] if i % 2 == 0 else [1, 0]
        threads = [
            threading.Thread(target=run, args=(engines[k], args.hash, args.depth, results[k]))
            for k in order
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        (na, ta), (nb, tb) = results
        if na != nb:
            print(f"note: the builds searched different trees ({na} and {nb} nodes)")
        nps_a, nps_b = na * 1000 // max(ta, 1), nb * 1000 // max(tb, 1)
        ratios.append(nps_b / nps_a)
        sums[0] += nps_a
        sums[1] += nps_b
        print(f"pair {i + 1}: A {nps_a} nps, B {nps_b} nps, B/A {nps_b / nps_a:.3f}", flush=True)
    print(
        f"hash {args.hash} MB, depth {args.depth}, {args.pairs} pairs: "
        f"mean nps A {sums[0] // args.pairs}, B {sums[1] // args.pairs}; "
        f"B/A {sums[1] / sums[0]:.3f} (summed), "
        f"{sum(ratios) / len(ratios):.3f} (mean of pairs)"
    )


if __name__ == "__main__":
    sys.exit(main())
