#!/usr/bin/env python3
"""A UCI engine that stops answering but stays alive.

Usage: hang.py ENGINE MODE. It relays a real engine (first argument), then goes silent:
  go       - on its third `go` of a game (it never sends that bestmove, nor anything else);
  isready  - after answering its first `isready` (the handshake), so the next game never
             gets its `readyok`.
"""

import sys

from uci_proxy import Proxy, engine_path

MODE = sys.argv[2] if len(sys.argv) > 2 else "go"


def maybe_hang(proxy, line):
    if MODE == "go" and line.startswith("go") and proxy.gos >= 3:
        proxy.silent = True
    if MODE == "isready" and line == "isready" and proxy.isready >= 2:
        proxy.silent = True
    return True


Proxy(engine_path()).run(on_command=maybe_hang)
