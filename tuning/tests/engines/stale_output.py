#!/usr/bin/env python3
"""A UCI engine that keeps talking after its answer.

It relays a real engine (first argument) and, after every bestmove, prints what a sloppy
engine may leave behind: a late `info` line, an `info string` and a second copy of the
bestmove (as a search that was stopped twice might). The copy is never legal in the position
of the engine's next `go` (the piece it names has moved), so a runner that takes it as the
answer to that `go` sees an illegal move.
"""

from uci_proxy import Proxy, engine_path


def linger(proxy, line):
    proxy.say(line)
    proxy.say("info depth 1 score cp 0 nodes 1 pv " + line.split()[1])
    proxy.say("info string late output after bestmove")
    return line


Proxy(engine_path()).run(on_bestmove=linger)
