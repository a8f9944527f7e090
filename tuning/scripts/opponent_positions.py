#!/usr/bin/env python3
"""Positions an opponent searched in match PGNs, with its own score, as trine-tune data.

Usage: opponent_positions.py NAME OUT PGN...

For every move of the player whose name contains NAME that carries a `{+0.20/14 0.170s}`
comment (as trine-match writes them), writes `FEN | score | result` to OUT: the position before
the move, the player's score turned to white's view in centipawns, and the game's result for
white. Positions in check, positions where the move captures or promotes, positions with three
men or fewer, mate scores and scores beyond 15 pawns are left out. Needs python-chess (`pip install chess`).
"""
import sys

import chess
import chess.pgn

from match_pgn import scored_moves

RESULTS = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}


def positions(name, path):
    with open(path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            result = RESULTS.get(game.headers.get("Result"))
            if result is None:
                continue
            white = name in game.headers.get("White", "")
            for board, move, pawns in scored_moves(game):
                ours = (board.turn == chess.WHITE) == white
                quiet = not board.is_check() and not board.is_capture(move) and not move.promotion
                if ours and pawns is not None and quiet and len(board.piece_map()) > 3:
                    score = round(pawns * 100)
                    if abs(score) < 1500:
                        yield board.fen(), score if board.turn == chess.WHITE else -score, result


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    name, out = sys.argv[1], sys.argv[2]
    n = 0
    with open(out, "w") as f:
        for path in sys.argv[3:]:
            for fen, score, result in positions(name, path):
                f.write(f"{fen} | {score} | {result}\n")
                n += 1
    print(f"{n} positions written to {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
