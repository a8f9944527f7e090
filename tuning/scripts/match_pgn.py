"""The move comments trine-match writes in its PGNs (`{+0.20/14 0.170s}`, `{-M3/20 0.050s}`), read
move by move with python-chess; shared by opponent_positions.py and turning_points.py."""
import re

COMMENT = re.compile(r"\s*([+-]?\d+\.\d+|[+-]?M\d+)/(\d+)")


def pawns(text):
    """A comment's score in pawns, the mover's view; a mate counts as 100 pawns."""
    if "M" in text:
        return -100.0 if text.startswith("-") else 100.0
    return float(text)


def scored_moves(game):
    """Yields (board before the move, move, the mover's score in pawns or None) along the main
    line. The board is the game's own, pushed after each yield: read it before the next."""
    board = game.board()
    for node in game.mainline():
        m = COMMENT.match(node.comment or "")
        yield board, node.move, pawns(m.group(1)) if m else None
        board.push(node.move)
