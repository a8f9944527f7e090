#!/usr/bin/env python3
"""A UCI engine that answers late.

Usage: late_bestmove.py ENGINE DELAY_MS. It relays a real engine (first argument) and holds
every bestmove back for DELAY_MS milliseconds, so each move ends that much past the time the
real engine took.
"""

import sys
import time

from uci_proxy import Proxy, engine_path

DELAY = int(sys.argv[2]) / 1000.0 if len(sys.argv) > 2 else 0.1


def hold(proxy, line):
    time.sleep(DELAY)
    return line


Proxy(engine_path()).run(on_bestmove=hold)
