#!/usr/bin/env python3
"""How often each player of trine-match PGNs reports a draw score, and how often the opponent
disagrees right after.

Usage: draw_scores.py PGN...

A draw score is one within a centipawn of zero: Trine scores draws 0.00, Ethereal 12 +0.01 or
-0.01 (it varies its draw score by a centipawn). For every player, counts the moves with a
`{+0.20/14 0.170s}` comment, those with a draw score, and those with a draw score after which the
opponent's very next score is at least +1.00 for the opponent
("the opponent thinks it is winning") or at most -1.00 ("the opponent thinks it is losing"). An
engine that treats too much as a draw (for example a repetition the opponent can avoid) shows
many draw scores that the opponent answers with a large score of its own. Reads the comments with a
regular expression; needs nothing but Python 3.
"""
import re
import sys
from collections import Counter

from match_pgn import movers, read_files

SCORE = re.compile(r"\{\s*([+-]?\d+\.\d+)/\d+")


def games(path):
    """Yields (first mover, second mover, movetext) for every game in a PGN file."""
    for tags, text in read_files([path]):
        yield movers(tags) + (text,)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    counts = Counter()
    for path in sys.argv[1:]:
        for first, second, text in games(path):
            # Scores in move order; moves without a score comment (book moves) have none here,
            # and trine-match writes a comment for every engine move.
            scores = [round(float(s) * 100) for s in SCORE.findall(text)]
            for i, s in enumerate(scores):
                player = first if i % 2 == 0 else second
                counts[(player, "moves")] += 1
                if abs(s) > 1:
                    continue
                counts[(player, "draw")] += 1
                if i + 1 < len(scores):
                    reply = scores[i + 1]
                    if reply >= 100:
                        counts[(player, "draw, opponent then >= +1.00")] += 1
                    elif reply <= -100:
                        counts[(player, "draw, opponent then <= -1.00")] += 1
    players = sorted({p for p, _ in counts})
    for p in players:
        n = counts[(p, "moves")]
        z = counts[(p, "draw")]
        print(
            f"{p}: {n} moves, {z} with a draw score ({100.0 * z / max(n, 1):.1f} %), "
            f"then the opponent >= +1.00: {counts[(p, 'draw, opponent then >= +1.00')]}, "
            f"<= -1.00: {counts[(p, 'draw, opponent then <= -1.00')]}"
        )


if __name__ == "__main__":
    main()
