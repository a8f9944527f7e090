#!/usr/bin/env python3
"""Paired comparison of two Trine builds that played the same opponent on the same openings.

Each build's games come from trine-match PGNs played with the same `--seed` and `--random-order`
(so game pair k, rounds 2k-1 and 2k, starts from the same opening with colours reversed). For
every opening pair played by both builds, the difference of their pair scores (0 .. 2 points
each) is taken; the mean difference and its 95 % interval (1.96 standard errors of the mean) are
turned into Elo around build B's score. Pairs are matched by seed, round and the FEN tag, so a
file from another seed or an unfinished batch cannot be paired by mistake.

    paired.py NAME_A NAME_B A-1723.pgn:B-1723.pgn [A-1724.pgn:B-1724.pgn ...]

NAME_A and NAME_B are the builds' player names in the PGNs (the opponent is whoever else played).
Prints one line per file pair and a pooled line.
"""

import math
import sys

from match_pgn import read_files


def games(path):
    """Yields the tag dictionary of every finished game (one with a `Result` tag) in a PGN file."""
    for tags, _ in read_files([path]):
        if "Result" in tags:
            yield tags


def points(tags, name):
    """Points `name` scored in the game, or None for an unfinished game or a game without it."""
    result = tags.get("Result")
    if result not in ("1-0", "0-1", "1/2-1/2"):
        return None
    if tags.get("White") == name:
        return {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}[result]
    if tags.get("Black") == name:
        return {"1-0": 0.0, "0-1": 1.0, "1/2-1/2": 0.5}[result]
    return None


def pair_scores(path, name):
    """{(pair index, opening FEN): pair score} for the complete pairs of `name` in `path`."""
    by_pair = {}
    for tags in games(path):
        p = points(tags, name)
        if p is None:
            continue
        k = (int(tags["Round"]) + 1) // 2
        by_pair.setdefault(k, []).append((tags.get("FEN", "startpos"), p))
    out = {}
    for k, played in by_pair.items():
        if len(played) == 2 and played[0][0] == played[1][0]:
            out[(k, played[0][0])] = played[0][1] + played[1][1]
    return out


def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def mean_se(values):
    """Mean of `values` and its standard error (sample variance)."""
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var / n)


def summary(diffs, base_scores):
    n = len(diffs)
    mean, se = mean_se(diffs)
    base = sum(base_scores) / (2 * n)
    to_elo = lambda d: elo(base + d / 2) - elo(base)
    return n, to_elo(mean), to_elo(mean - 1.96 * se), to_elo(mean + 1.96 * se), base


def main(argv):
    if len(argv) < 4:
        sys.exit(__doc__)
    name_a, name_b = argv[1], argv[2]
    all_diffs, all_base = [], []
    for spec in argv[3:]:
        path_a, sep, path_b = spec.partition(":")
        if not sep:
            sys.exit(f"{spec}: expected A.pgn:B.pgn")
        a, b = pair_scores(path_a, name_a), pair_scores(path_b, name_b)
        common = sorted(set(a) & set(b))
        if not common:
            print(f"{spec}: no opening pair played by both")
            continue
        diffs = [a[k] - b[k] for k in common]
        base = [b[k] for k in common]
        n, d, lo, hi, sb = summary(diffs, base)
        sa = sum(a[k] for k in common) / (2 * n)
        print(f"{spec}: {n} pairs, {name_a} {100 * sa:.1f} %, {name_b} {100 * sb:.1f} %, "
              f"difference {d:+.1f} ({lo:+.1f} .. {hi:+.1f}) Elo")
        all_diffs += diffs
        all_base += base
    if all_diffs:
        n, d, lo, hi, sb = summary(all_diffs, all_base)
        sa = sb + sum(all_diffs) / (2 * n)
        print(f"pooled: {n} pairs, {name_a} {100 * sa:.1f} %, {name_b} {100 * sb:.1f} %, "
              f"difference {d:+.1f} ({lo:+.1f} .. {hi:+.1f}) Elo")
        own_a = [b + d for b, d in zip(all_base, all_diffs)]
        for name, own in ((name_a, own_a), (name_b, all_base)):
            e, lo, hi = pair_elo(own)
            print(f"{name} against the opponent over those pairs: {e:+.1f} ({lo:+.1f} .. {hi:+.1f}) Elo")


def pair_elo(scores):
    """Elo and 95 % interval of a build against the opponent from its pair scores (pentanomial)."""
    mean, se = mean_se(scores)
    return elo(mean / 2), elo((mean - 1.96 * se) / 2), elo((mean + 1.96 * se) / 2)


if __name__ == "__main__":
    main(sys.argv)
