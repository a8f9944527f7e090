#!/usr/bin/env python3
"""A UCI engine that plays two good moves per game, then an illegal one.

It relays a real engine (first argument) and, on its third move of a game, reverses the
real engine's move (to-square to from-square): the to-square of a legal move never holds a
piece of the side to move, so the reversed move is always illegal.
"""

from uci_proxy import Proxy, engine_path


def corrupt(proxy, line):
    if proxy.bestmoves < 3:
        return line
    move = line.split()[1]
    return "bestmove " + move[2:4] + move[0:2]


Proxy(engine_path()).run(on_bestmove=corrupt)
