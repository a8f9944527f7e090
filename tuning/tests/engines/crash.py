#!/usr/bin/env python3
"""A UCI engine that crashes: it relays a real engine (first argument) for two moves of a
game and exits abruptly, without a bestmove, when asked for its third move."""

import os

from uci_proxy import Proxy, engine_path


def maybe_crash(proxy, line):
    if line.startswith("go") and proxy.gos >= 3:
        os._exit(3)
    return True


Proxy(engine_path()).run(on_command=maybe_crash)
