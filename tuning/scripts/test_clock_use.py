#!/usr/bin/env python3
"""Checks clock_use.py on a hand-made game (run by .ci/run)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import clock_use as cu  # noqa: E402
from match_pgn import read_games  # noqa: E402

PGN = """[Event "trine-match"]
[White "trine"]
[Black "Ethereal-12"]
[Result "0-1"]
[TimeControl "2+0.5"]

1. e4 {+0.30/10 1.0s} e5 {-0.20/11 0.25s} 2. Qh5 {+0.10/10 0.5s} Nc6 {+0.90/12 0.25s}
3. Nf3 {+0.20/10 0.25s} 0-1
"""


def main():
    spent, left = cu.clock_use(read_games((PGN + "\n" + PGN).splitlines()))
    # Three white moves and two black ones, all in the first bucket, in each of the two games.
    assert spent["trine"][0] == [2 * 1.75, 6], spent["trine"]
    assert spent["Ethereal-12"][0] == [2 * 0.5, 4], spent["Ethereal-12"]
    assert 1 not in spent["trine"]
    # White: 2 + 3 × 0.5 − 1.75; Black: 2 + 2 × 0.5 − 0.5.
    assert left["trine"] == [1.75, 1.75], left
    assert left["Ethereal-12"] == [2.5, 2.5], left
    # From a position with Black to move, Black's is the first move: the same comments, sides
    # swapped.
    black_first = PGN.replace("[TimeControl", '[FEN "8/8/8/8/8/8/8/K6k b - - 0 1"]\n[TimeControl')
    spent, left = cu.clock_use(read_games(black_first.splitlines()))
    assert spent["Ethereal-12"][0] == [1.75, 3], spent["Ethereal-12"]
    assert spent["trine"][0] == [0.5, 2], spent["trine"]
    assert left == {"Ethereal-12": [1.75], "trine": [2.5]}, left
    # Time odds: each side's own clock from WhiteTimeControl / BlackTimeControl.
    per_side = '[WhiteTimeControl "8+1"]\n[BlackTimeControl "2+0.5"]'
    odds = PGN.replace('[TimeControl "2+0.5"]', per_side)
    spent, left = cu.clock_use(read_games(odds.splitlines()))
    # White: 8 + 3 × 1 − 1.75; Black as before.
    assert left == {"trine": [9.25], "Ethereal-12": [2.5]}, left
    print("clock_use.py: ok")


if __name__ == "__main__":
    main()
