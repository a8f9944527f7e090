#!/usr/bin/env python3
"""Relabels trine-tune data with a UCI engine's fixed-depth score.

Usage: engine_labels.py ENGINE DEPTH IN OUT [STRIDE]

Reads `FEN | score | result` lines from IN (every STRIDE-th line, default all), searches each
position with ENGINE (`go depth DEPTH` after `ucinewgame`, Hash 16) and writes
`FEN | engine score (white's view) | result` to OUT. Positions the engine scores as a mate or
beyond 15 pawns are left out. Talks UCI over pipes; needs nothing but Python 3.

The engine is started afresh every RESTART_EVERY positions, and a position it does not answer
within TIMEOUT_S seconds is skipped and the engine restarted. Ethereal 12 (the Debian package)
stopped answering after about 32,600 searches in one process (both of two runs of this script hung
there); its virtual size grows by about 8 MB with every `go`, which looks like a thread stack left
mapped per search (docs/testing.md, "Long matches against Ethereal 12").
"""
import queue
import subprocess
import sys
import threading

RESTART_EVERY = 10_000
TIMEOUT_S = 30.0


class Engine:
    """A UCI engine process whose output lines arrive through a queue, so reads can time out."""

    def __init__(self, path):
        self.p = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._pump, daemon=True).start()
        self.send("uci")
        self.wait_for("uciok")
        self.send("setoption name Hash value 16")
        self.send("isready")
        self.wait_for("readyok")

    def _pump(self):
        for line in self.p.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def send(self, line):
        self.p.stdin.write(line + "\n")
        self.p.stdin.flush()

    def read(self):
        """The next output line; None when the engine is silent for TIMEOUT_S or has exited."""
        try:
            return self.lines.get(timeout=TIMEOUT_S)
        except queue.Empty:
            return None

    def wait_for(self, prefix):
        while True:
            line = self.read()
            if line is None:
                sys.exit(f"the engine did not answer with {prefix}")
            if line.startswith(prefix):
                return

    def close(self):
        try:
            self.send("quit")
        except OSError:
            pass
        try:
            self.p.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.p.kill()


def score_of(engine, fen, depth):
    """The engine's last centipawn score for `fen` (side to move's view), None for a mate score;
    raises TimeoutError when the engine stops answering."""
    engine.send("ucinewgame")
    engine.send(f"position fen {fen}")
    engine.send(f"go depth {depth}")
    score = None
    while True:
        line = engine.read()
        if line is None:
            raise TimeoutError
        if line.startswith("bestmove"):
            return score
        if " score cp " in line:
            score = int(line.split(" score cp ")[1].split()[0])
        elif " score mate " in line:
            score = None


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    path, depth, src, dst = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    stride = int(sys.argv[5]) if len(sys.argv) > 5 else 1
    engine = Engine(path)
    searched = written = skipped = 0
    with open(src) as f, open(dst, "w") as out:
        for i, line in enumerate(f):
            if i % stride:
                continue
            if searched and searched % RESTART_EVERY == 0:
                engine.close()
                engine = Engine(path)
            searched += 1
            fen, _, result = [x.strip() for x in line.split("|")]
            try:
                score = score_of(engine, fen, depth)
            except TimeoutError:
                skipped += 1
                engine.p.kill()
                engine = Engine(path)
                continue
            if score is None or abs(score) >= 1500:
                continue
            if fen.split()[1] == "b":
                score = -score
            out.write(f"{fen} | {score} | {result}\n")
            written += 1
    engine.close()
    print(
        f"{written} positions written to {dst} ({skipped} skipped: the engine did not answer)",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
