"""Reading trine-match's PGNs. The move comments it writes (`{+0.20/14 0.170s}`, `{-M3/20
0.050s}`) are read move by move with python-chess by `scored_moves` (opponent_positions.py,
turning_points.py); `read_games`, `read_files` and `movers` read the tags and the movetext as plain text, with
nothing but Python 3 (draw_scores.py, clock_use.py, paired.py)."""
import re

COMMENT = re.compile(r"\s*([+-]?\d+\.\d+|[+-]?M\d+)/(\d+)")
TAG = re.compile(r'^\[(\w+) "(.*)"\]\s*$')


def read_games(lines):
    """Yields (tag dictionary, movetext on one line) for every game in PGN text given as lines."""
    tags, moves = {}, []
    for line in lines:
        m = TAG.match(line)
        if m:
            if moves:
                yield tags, " ".join(moves)
                tags, moves = {}, []
            tags[m.group(1)] = m.group(2)
        elif line.strip():
            moves.append(line.strip())
    if moves:
        yield tags, " ".join(moves)


def read_files(paths):
    """`read_games` over the PGN files at `paths`, one after the other."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            yield from read_games(f)


def movers(tags):
    """The players in the order they move from the game's start position (its FEN tag)."""
    white, black = tags.get("White"), tags.get("Black")
    fields = tags.get("FEN", "").split()
    return (black, white) if len(fields) > 1 and fields[1] == "b" else (white, black)


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
