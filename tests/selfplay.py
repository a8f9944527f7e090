#!/usr/bin/env python3
"""Self-play check of a UCI engine through python-chess, run by CI.

Plays complete games of the engine against itself (two separate engine
processes) under real clocks, and fails on anything a GUI would reject: an
illegal or missing bestmove, an engine that crashes, hangs or exits, or a
move that takes longer than the mover's remaining clock.  It also runs one
`analyse` call to check that `info` lines (score and pv) are parsed and that
the pv is legal.

Usage:
    python3 tests/selfplay.py [ENGINE] [--games N] [--tc BASE+INC]
                              [--threads N] [--openings FILE.epd]

Prints one line per game and ends with `N passed, M failed` (games).  Exits 1
if any game or the analyse check failed.  Requires `pip install chess`.
"""

import argparse
import os
import random
import signal
import sys
import threading
import time

try:
    import chess
    import chess.engine
except ImportError:
    sys.exit("selfplay.py needs python-chess: python3 -m pip install chess")

MAX_PLIES = 300
# Extra seconds, beyond the mover's remaining clock, before a silent engine
# is declared hung and killed.
HANG_GRACE = 5.0


class CheckFailed(Exception):
    """A rule violation by an engine; the message says which."""


def parse_tc(text):
    """Parses `BASE+INC` (seconds) or `BASE` into (base, inc)."""
    base_text, _, inc_text = text.partition("+")
    try:
        base = float(base_text)
        inc = float(inc_text) if inc_text else 0.0
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad time control {text!r}, expected BASE+INC")
    if base <= 0 or inc < 0:
        raise argparse.ArgumentTypeError(f"bad time control {text!r}")
    return base, inc


def load_openings(path):
    """Reads the FEN/EPD lines of an openings file; returns a list of boards."""
    boards = []
    with open(path, encoding="utf-8") as handle:
        for line_no, raw in enumerate(handle, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            try:
                board = chess.Board(line.split(";")[0].strip())
            except ValueError:
                try:
                    board, _ = chess.Board.from_epd(line)
                except ValueError as err:
                    raise ValueError(f"{path}:{line_no}: bad position: {err}")
            if not board.is_valid() or board.is_game_over(claim_draw=True):
                raise ValueError(f"{path}:{line_no}: unusable opening position {line!r}")
            boards.append(board)
    if not boards:
        raise ValueError(f"{path}: no positions")
    return boards


def pick_openings(args, count):
    """One opening per pair of games (colours swapped within a pair)."""
    if args.openings and os.path.exists(args.openings):
        boards = load_openings(args.openings)
        rng = random.Random(args.seed)
        if len(boards) >= count:
            return rng.sample(boards, count)
        return [rng.choice(boards) for _ in range(count)]
    if args.openings:
        sys.exit(f"error: openings file {args.openings} not found")
    return [chess.Board() for _ in range(count)]


class Player:
    """One engine process, restarted after a failure."""

    def __init__(self, name, command, threads):
        self.name = name
        self.command = command
        self.threads = threads
        self.engine = None

    def start(self):
        self.engine = chess.engine.SimpleEngine.popen_uci(self.command)
        if self.threads is not None:
            if "Threads" not in self.engine.options:
                raise CheckFailed(f"{self.name}: engine has no Threads option")
            self.engine.configure({"Threads": self.threads})

    def ensure_started(self):
        if self.engine is None:
            self.start()

    def pid(self):
        try:
            return self.engine.transport.get_pid()
        except Exception:  # noqa: BLE001 - best effort only
            return None

    def kill(self):
        """Kills the process (used on a hang) so that the pending call returns."""
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass

    def stop(self):
        """Quits politely if possible; always forgets the process."""
        engine, self.engine = self.engine, None
        if engine is None:
            return
        try:
            engine.quit()
        except Exception:  # noqa: BLE001 - it may already be dead
            try:
                engine.close()
            except Exception:  # noqa: BLE001
                pass


def play_move(player, board, limit, deadline, game_id):
    """Asks `player` for a move under a watchdog; returns (move, seconds)."""
    hung = threading.Event()

    def on_hang():
        hung.set()
        player.kill()

    watchdog = threading.Timer(deadline, on_hang)
    watchdog.daemon = True
    start = time.perf_counter()
    watchdog.start()
    try:
        result = player.engine.play(board, limit, game=game_id)
    except Exception as err:  # noqa: BLE001 - any engine error fails the game
        if hung.is_set():
            raise CheckFailed(f"{player.name} hung: no bestmove after {deadline:.1f}s")
        raise CheckFailed(f"{player.name} error: {type(err).__name__}: {err}")
    finally:
        watchdog.cancel()
    elapsed = time.perf_counter() - start
    if result.move is None:
        raise CheckFailed(f"{player.name} gave no bestmove in {board.fen()}")
    if result.move not in board.legal_moves:
        raise CheckFailed(f"{player.name} played illegal move {result.move.uci()} in {board.fen()}")
    return result.move, elapsed


def play_game(white, black, opening, base, inc, game_id):
    """Plays one game; returns (result, reason, plies, min clock left)."""
    board = opening.copy(stack=False)
    clocks = {chess.WHITE: base, chess.BLACK: base}
    min_left = base
    plies = 0
    while True:
        if board.is_game_over(claim_draw=True):
            outcome = board.outcome(claim_draw=True)
            return outcome.result(), outcome.termination.name.lower(), plies, min_left
        if plies >= MAX_PLIES:
            return "1/2-1/2", f"adjudicated draw at {MAX_PLIES} plies", plies, min_left
        mover = white if board.turn == chess.WHITE else black
        left = clocks[board.turn]
        limit = chess.engine.Limit(
            white_clock=clocks[chess.WHITE],
            black_clock=clocks[chess.BLACK],
            white_inc=inc,
            black_inc=inc,
        )
        try:
            move, elapsed = play_move(mover, board, limit, left + HANG_GRACE, game_id)
        except CheckFailed as err:
            raise CheckFailed(f"{err} (at ply {plies + 1})") from None
        if elapsed > left:
            side = "white" if board.turn == chess.WHITE else "black"
            raise CheckFailed(
                f"{mover.name} ({side}) lost on time at ply {plies + 1}: "
                f"move took {elapsed:.3f}s with {left:.3f}s left"
            )
        clocks[board.turn] = left - elapsed + inc
        min_left = min(min_left, left - elapsed)
        board.push(move)
        plies += 1


def check_analyse(player, board):
    """One `analyse` call: the info must carry a score and a legal pv."""
    info = player.engine.analyse(board, chess.engine.Limit(time=0.3))
    if "score" not in info:
        raise CheckFailed(f"analyse: no score in info {info}")
    pv = info.get("pv")
    if not pv:
        raise CheckFailed(f"analyse: no pv in info {info}")
    replay = board.copy()
    for move in pv:
        if move not in replay.legal_moves:
            raise CheckFailed(f"analyse: illegal pv move {move.uci()} in {replay.fen()}")
        replay.push(move)
    return info


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("engine", nargs="?", default="target/release/trine",
                        help="engine executable (default: target/release/trine)")
    parser.add_argument("--games", type=int, default=4, help="number of games (default 4)")
    parser.add_argument("--tc", type=parse_tc, default=(1.0, 0.01),
                        help="time control BASE+INC in seconds (default 1+0.01)")
    parser.add_argument("--threads", type=int, default=None,
                        help="set the engines' Threads option")
    parser.add_argument("--openings", default=None,
                        help="EPD/FEN file of opening positions (default: start position)")
    parser.add_argument("--seed", type=int, default=1, help="opening selection seed")
    args = parser.parse_args()
    if args.games < 1:
        parser.error("--games must be at least 1")
    if args.threads is not None and args.threads < 1:
        parser.error("--threads must be at least 1")
    base, inc = args.tc
    command = [os.path.abspath(args.engine)] if os.path.exists(args.engine) else [args.engine]

    try:
        openings = pick_openings(args, (args.games + 1) // 2)
    except (OSError, ValueError) as err:
        print(f"error: cannot read openings: {err}")
        return 1

    players = [Player("engine A", command, args.threads), Player("engine B", command, args.threads)]
    analyse_ok = True
    try:
        players[0].start()
        info = check_analyse(players[0], openings[0])
        pv = " ".join(m.uci() for m in info["pv"])
        print(f"analyse: depth {info.get('depth')} score {info['score'].white()} pv {pv}")
    except Exception as err:  # noqa: BLE001 - report and carry on with the games
        analyse_ok = False
        print(f"analyse check FAILED: {type(err).__name__}: {err}")
        players[0].stop()

    passed = failed = 0
    for index in range(args.games):
        opening = openings[index // 2]
        white, black = (players[0], players[1]) if index % 2 == 0 else (players[1], players[0])
        label = f"game {index + 1}/{args.games} ({white.name} white)"
        try:
            white.ensure_started()
            black.ensure_started()
            result, reason, plies, min_left = play_game(white, black, opening, base, inc, object())
        except Exception as err:  # noqa: BLE001 - any failure fails this game
            failed += 1
            print(f"{label}: FAILED: {err} [opening {opening.fen()}]")
            for player in players:
                player.stop()
            continue
        passed += 1
        print(f"{label}: {result} ({reason}), {plies} plies, min clock left {min_left:.3f}s")

    for player in players:
        player.stop()
    if not analyse_ok:
        print("the analyse check failed")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and analyse_ok else 1


if __name__ == "__main__":
    sys.exit(main())
