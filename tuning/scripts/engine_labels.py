#!/usr/bin/env python3
"""Relabels trine-tune data with a UCI engine's fixed-depth score.

Usage: engine_labels.py ENGINE DEPTH IN OUT [STRIDE]

Reads `FEN | score | result` lines from IN (every STRIDE-th line, default all), searches each
position with ENGINE (`go depth DEPTH` after `ucinewgame`, Hash 16) and writes
`FEN | engine score (white's view) | result` to OUT. Positions the engine scores as a mate or
beyond 15 pawns are left out. Talks UCI over pipes; needs nothing but Python 3.
"""
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    engine, depth, src, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    stride = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    p = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(line):
        p.stdin.write(line + "\n")
        p.stdin.flush()

    def read():
        line = p.stdout.readline()
        if not line:
            sys.exit(f"{engine} closed its output")
        return line

    send("uci")
    while not read().startswith("uciok"):
        pass
    send("setoption name Hash value 16")
    send("isready")
    while not read().startswith("readyok"):
        pass
    written = 0
    with open(src) as f, open(dst, "w") as out:
        for i, line in enumerate(f):
            if i % stride:
                continue
            fen, _, result = [x.strip() for x in line.split("|")]
            send("ucinewgame")
            send(f"position fen {fen}")
            send(f"go depth {depth}")
            score = None
            while not (line := read()).startswith("bestmove"):
                if " score cp " in line:
                    score = int(line.split(" score cp ")[1].split()[0])
                elif " score mate " in line:
                    score = None
            if score is None or abs(score) >= 1500:
                continue
            if fen.split()[1] == "b":
                score = -score
            out.write(f"{fen} | {score} | {result}\n")
            written += 1
    send("quit")
    print(f"{written} positions written to {dst}", file=sys.stderr)


if __name__ == "__main__":
    main()
