#!/usr/bin/env python3
"""Clock use per player from trine-match PGNs: seconds spent per move, by move number, and the
clock left at the end of each game.

Each move's time is read from trine-match's move comments (`{+0.20/16 0.636s}`); the base time and
increment from the `TimeControl` tag, or per side from `WhiteTimeControl` and `BlackTimeControl` (a
match where one engine has its own `tc=`). Moves are counted from the game's start position (the
opening's last move is move 1 here; the side to move there, from the FEN tag, moves first), in
buckets of ten, the last bucket holding move 61 onwards.

    clock_use.py GAMES.pgn [MORE.pgn ...]

Prints, per player, the mean seconds a move in each bucket (with the number of moves), the mean
seconds spent in a game and the mean clock left when the game ended.
"""

import collections
import re
import sys

from match_pgn import movers, read_files

BUCKETS = 7
SECONDS = re.compile(r"/\d+ ([\d.]+)s\}")


def clock_use(games):
    """Per player: {bucket: [seconds, moves]} and the list of clocks left at each game's end, from
    (tags, movetext) pairs as `match_pgn.read_games` yields them."""
    spent = collections.defaultdict(lambda: collections.defaultdict(lambda: [0.0, 0]))
    left = collections.defaultdict(list)
    for tags, text in games:
        first, second = movers(tags)
        inc, clock = {}, {}
        for player, colour in ((tags["White"], "White"), (tags["Black"], "Black")):
            tc = tags.get(colour + "TimeControl", tags.get("TimeControl"))
            clock[player], inc[player] = map(float, tc.split("+"))
        for ply, t in enumerate(map(float, SECONDS.findall(text))):
            player = first if ply % 2 == 0 else second
            bucket = min(ply // 2 // 10, BUCKETS - 1)
            spent[player][bucket][0] += t
            spent[player][bucket][1] += 1
            clock[player] += inc[player] - t
        for player in (first, second):
            left[player].append(clock[player])
    return spent, left


def main(paths):
    if not paths:
        sys.exit(__doc__)
    spent, left = clock_use(read_files(paths))
    for player in sorted(spent):
        cells = []
        for b in range(BUCKETS):
            secs, moves = spent[player][b]
            label = f"{b * 10 + 1}-{b * 10 + 10}" if b < BUCKETS - 1 else f"{b * 10 + 1}+"
            cells.append(f"{label}: {secs / max(moves, 1):.3f} s ({moves})")
        games = len(left[player])
        per_game = sum(secs for secs, _ in spent[player].values()) / games
        mean_left = sum(left[player]) / games
        print(
            f"{player}: " + ", ".join(cells)
            + f"; {per_game:.2f} s a game; clock left {mean_left:.2f} s"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
