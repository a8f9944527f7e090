#!/usr/bin/env python3
"""Checks widened_units.py on small version-3 files written here: exact copies of the right units
correlate 1 with no difference, a changed copy less, and a file that is no widening is refused
(run by .ci/run)."""
import os
import struct
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from widened_units import main, report  # noqa: E402


def write(path, h, w1_columns, w2):
    """A version-3 file of one king bucket and one output bucket."""
    rows = [[w1_columns[u][f] for u in range(h)] for f in range(768)]
    with open(path, "wb") as f:
        f.write(b"TRINENN3" + struct.pack("<4I", h, 400, 1, 1) + bytes(64))
        for row in rows:
            f.write(struct.pack(f"<{h}h", *row))
        f.write(struct.pack(f"<{h}h", *([0] * h)))
        f.write(struct.pack(f"<{2 * h}h", *w2))
        f.write(struct.pack("<i", 0))


def main_test():
    h0 = 8
    cols = [[(f * (u + 3) + u * u) % 41 - 20 for f in range(768)] for u in range(h0)]
    # Unit 5 has the largest output weights, then unit 2, then the rest by index.
    w2 = [1] * (2 * h0)
    w2[5], w2[h0 + 5], w2[2] = 9, 9, 7
    with tempfile.TemporaryDirectory() as d:
        narrow, wide, bent = (os.path.join(d, n) for n in ("narrow", "wide", "bent"))
        write(narrow, h0, cols, w2)
        order = [5, 2, 0, 1, 3, 4, 6, 7]
        write(wide, 16, cols + [cols[u] for u in order], [1] * 32)
        out = report(narrow, wide)
        assert "median 1.0000, least 1.0000" in out and "median 0.000" in out, out
        changed = [x + (7 if f % 3 == 0 else 0) for f, x in enumerate(cols[2])]
        copies = [changed if u == 2 else cols[u] for u in order]
        write(bent, 16, cols + copies, [1] * 32)
        out = report(narrow, bent)
        assert "median 1.0000" in out and "least 1.0000" not in out, out
        assert "share of |w2| 0.500" in out, out
        assert main(["widened_units.py", narrow, narrow]) == 1
        assert main(["widened_units.py", narrow]) == 2
    print("test_widened_units: ok")


if __name__ == "__main__":
    main_test()
