#!/usr/bin/env python3
"""Checks turning_points.py on a hand-made game (run by .ci/run; needs python-chess)."""
import io
import os
import sys

import chess.pgn

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import turning_points as tp  # noqa: E402

PGN = """[White "trine"]
[Black "Ethereal-12"]
[Result "0-1"]

1. e4 {+0.30/10 0.1s} e5 {-0.20/11 0.1s} 2. Qh5 {+0.10/10 0.1s} Nc6 {+0.90/12 0.1s}
3. Nf3 {+0.20/10 0.1s} Nf6 {+0.95/12 0.1s} 4. Qxf7+ {-0.50/9 0.1s} Kxf7 {+9.00/12 0.1s} 0-1
"""


def main():
    game = chess.pgn.read_game(io.StringIO(PGN))
    moves = tp.moves_with_scores(game, "Ethereal")
    assert [m[0] for m in moves[:4]] == [True, False, True, False], moves
    points = list(tp.turning_points(moves, 1.0, 0.6))
    # 2. Qh5 took Ethereal from -0.20 to +0.90; 3. Nf3 (+0.90 -> +0.95) is no jump; 4. Qxf7+
    # starts from +0.95, within the level, and the jump to +9.00 counts.
    assert [(p[0][2], p[1], p[2]) for p in points] == [("d1h5", -0.2, 0.9), ("h5f7", 0.95, 9.0)], points
    # A higher bar for the jump keeps only the queen sacrifice.
    assert [p[0][2] for p in tp.turning_points(moves, 1.0, 5.0)] == ["h5f7"]
    # Named the other way round, the sides swap.
    assert [m[0] for m in tp.moves_with_scores(game, "trine")[:2]] == [False, True]
    print("turning_points.py: ok")


if __name__ == "__main__":
    main()
