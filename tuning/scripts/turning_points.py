#!/usr/bin/env python3
"""Where an opponent's score jumps after one of our moves, in match PGNs.

Usage: turning_points.py OPPONENT [--level L] [--jump J] PGN... > points.tsv

For every move of the engine that is *not* OPPONENT (a player whose name contains OPPONENT is
the opponent) played in a position where the opponent's last score was within ±L pawns (default
1.00), and after which the opponent's next score is at least J pawns higher (default 0.60), prints
one tab-separated line: file, round, the FEN before our move, our move (UCI), our own score for it,
the opponent's score before and after (pawns, each side's own view, as trine-match writes them in
`{+0.20/14 0.170s}` comments). Ends with a count per file on stderr.

These are the candidate moments where a game turned: the opponent saw something our search did
not. Search them again with both engines (longer, or with `searchmoves`) to tell a search miss
from an evaluation one. Needs python-chess (`pip install chess`).
"""
import sys

import chess
import chess.pgn

from match_pgn import scored_moves


def moves_with_scores(game, opponent):
    """(ours, FEN before, UCI move, score or None) for every move of the game."""
    ours_white = opponent not in game.headers.get("White", "")
    return [
        ((board.turn == chess.WHITE) == ours_white, board.fen(), move.uci(), score)
        for board, move, score in scored_moves(game)
    ]


def turning_points(moves, level, jump):
    for k in range(1, len(moves) - 1):
        before, ours, after = moves[k - 1], moves[k], moves[k + 1]
        if not ours[0] or before[0] or after[0] or before[3] is None or after[3] is None:
            continue
        if abs(before[3]) <= level and after[3] - before[3] >= jump:
            yield ours, before[3], after[3]


def main():
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        sys.exit(__doc__)
    opponent, level, jump, files = args[0], 1.0, 0.6, []
    rest = iter(args[1:])
    for a in rest:
        if a == "--level":
            level = float(next(rest))
        elif a == "--jump":
            jump = float(next(rest))
        else:
            files.append(a)
    for path in files:
        count = 0
        with open(path) as f:
            while (game := chess.pgn.read_game(f)) is not None:
                rnd = game.headers.get("Round", "?")
                for ours, s0, s1 in turning_points(moves_with_scores(game, opponent), level, jump):
                    score = "" if ours[3] is None else ours[3]
                    print(f"{path}\t{rnd}\t{ours[1]}\t{ours[2]}\t{score}\t{s0}\t{s1}")
                    count += 1
        print(f"{path}: {count}", file=sys.stderr)


if __name__ == "__main__":
    main()
