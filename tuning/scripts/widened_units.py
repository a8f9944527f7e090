#!/usr/bin/env python3
"""How far the units that `trine-nnue --widen-copies` added have moved from the units they copy.

    widened_units.py NARROW.nnue WIDE.nnue

NARROW is the network that was widened (H0 units), WIDE the wider one (H units, H0 < H <= 2 H0),
before or after training; both are version-3 files (docs/nnue.md). The new unit H0 + i copies the
i-th of NARROW's units ranked by the summed absolute value of their output weights (over buckets
and halves; ties to the lower index), as the trainer ranks them. For each pair it takes the
feature weights (every king block's rows) of the unit and of its copy in WIDE and prints the
median and least correlation, the median root-mean-square difference over the unit's own root
mean square, and the new units' share of the summed absolute output weights.
"""

import math
import statistics
import struct
import sys
from array import array


def load(path):
    """(H, each unit's feature weights, each unit's summed absolute output weights) of a file."""
    data = open(path, "rb").read()
    if data[:8] != b"TRINENN3":
        raise ValueError(f"{path}: not a version-3 network file")
    h, _scale, buckets, kings = struct.unpack_from("<4I", data, 8)
    offset = 8 + 16 + 64
    n1 = kings * 768 * h
    w1 = array("h")
    w1.frombytes(data[offset : offset + 2 * n1])
    offset += 2 * n1 + 2 * h
    w2 = array("h")
    w2.frombytes(data[offset : offset + 2 * buckets * 2 * h])
    if sys.byteorder != "little":
        w1.byteswap()
        w2.byteswap()
    columns = [w1[u::h] for u in range(h)]
    out = [sum(abs(w2[r * h + u]) for r in range(2 * buckets)) for u in range(h)]
    return h, columns, out


def correlation(a, b):
    try:
        return statistics.correlation(a, b)
    except statistics.StatisticsError:
        return float("nan")


def report(narrow_path, wide_path):
    h0, _, out0 = load(narrow_path)
    h, cols, out = load(wide_path)
    extra = h - h0
    if not 0 < extra <= h0:
        raise ValueError(f"{wide_path}: {h} units is not a widening of {h0} by copies")
    order = sorted(range(h0), key=lambda u: (-out0[u], u))[:extra]
    corr, diff = [], []
    for i, u in enumerate(order):
        a, b = cols[u], cols[h0 + i]
        corr.append(correlation(a, b))
        own = math.sqrt(sum(x * x for x in a) / len(a))
        d = math.sqrt(sum((x - y) ** 2 for x, y in zip(a, b)) / len(a))
        diff.append(d / own if own > 0 else float("nan"))
    share = sum(out[h0:]) / sum(out)
    return (
        f"new units {extra}: feature-weight correlation with their units median "
        f"{statistics.median(corr):.4f}, least {min(corr):.4f}; rms difference over the unit's "
        f"rms median {statistics.median(diff):.3f}; new units' share of |w2| {share:.3f}"
    )


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    try:
        print(report(argv[1], argv[2]))
    except (OSError, ValueError, struct.error) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
