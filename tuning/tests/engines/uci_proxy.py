"""Shared part of the deliberately broken test engines.

Each broken engine runs a real UCI engine (the path is its first command-line argument),
relays the conversation in both directions, and lets the script change it: rewrite a
bestmove, exit, or go silent. Counters restart at every `ucinewgame`.
"""

import subprocess
import sys
import threading


class Proxy:
    """Relays stdin to the real engine and the real engine's output to stdout."""

    def __init__(self, engine_path):
        self.child = subprocess.Popen(
            [engine_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.bestmoves = 0  # bestmoves relayed in the current game
        self.gos = 0  # go commands received in the current game
        self.isready = 0  # isready commands received since the start
        self.silent = False  # once set, nothing more is relayed or answered
        self.lock = threading.Lock()

    def say(self, line):
        """Writes one line to the match runner, unless the engine went silent."""
        with self.lock:
            if self.silent:
                return
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    def tell_engine(self, line):
        """Sends one line to the real engine."""
        try:
            self.child.stdin.write(line + "\n")
            self.child.stdin.flush()
        except OSError:
            pass

    def run(self, on_bestmove=None, on_command=None):
        """Relays until stdin closes.

        on_bestmove(proxy, line) returns the line to send instead (None: send nothing).
        on_command(proxy, line) returns False to swallow a command from the runner.
        """

        def pump():
            for raw in self.child.stdout:
                line = raw.rstrip("\n")
                if line.startswith("bestmove"):
                    self.bestmoves += 1
                    if on_bestmove is not None:
                        line = on_bestmove(self, line)
                        if line is None:
                            continue
                self.say(line)

        threading.Thread(target=pump, daemon=True).start()
        for raw in sys.stdin:
            line = raw.strip()
            if line == "ucinewgame":
                self.bestmoves = 0
                self.gos = 0
            if line.startswith("go"):
                self.gos += 1
            if line == "isready":
                self.isready += 1
            if on_command is not None and on_command(self, line) is False:
                continue
            if self.silent:
                continue
            self.tell_engine(line)
            if line == "quit":
                break
        self.tell_engine("quit")


def engine_path():
    """The real engine's path: the first command-line argument."""
    if len(sys.argv) < 2:
        sys.stderr.write("usage: %s ENGINE [MODE]\n" % sys.argv[0])
        sys.exit(2)
    return sys.argv[1]
