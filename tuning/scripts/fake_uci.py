"""A scripted UCI engine for the tuning scripts' own tests.

`write(directory, go, ...)` writes an executable engine that answers `uci` with the options it is
given, `isready` and `quit`, keeps every `setoption` value in `opts` (names to value strings), and
at each `go` runs the test's Python lines (which see `opts` and print the search's `info` lines)
and then answers `bestmove 0000`.
"""

import os
import stat
import sys
import textwrap

TEMPLATE = """#!{python}
import sys
opts = {defaults!r}
for line in sys.stdin:
    w = line.split()
    if w[:1] == ["uci"]:
        print("id name fake", flush=True)
        for option in {options!r}:
            print("option name " + option, flush=True)
        print("uciok", flush=True)
    elif w[:1] == ["isready"]:
        print("readyok", flush=True)
    elif w[:2] == ["setoption", "name"] and "value" in w:
        opts[w[2]] = w[w.index("value") + 1]
    elif w[:1] == ["go"]:
{go}
        print("bestmove 0000", flush=True)
    elif w[:1] == ["quit"]:
        break
"""


def write(directory, go, options=("Hash type spin default 16 min 1 max 1024",), defaults=None):
    """Writes the engine into `directory` and returns its path. `go`: the lines run at each `go`;
    `options`: the `option name ...` declarations (without `option name`); `defaults`: the
    starting `opts`."""
    path = os.path.join(directory, "fake-engine")
    with open(path, "w") as f:
        f.write(TEMPLATE.format(
            python=sys.executable,
            defaults=dict(defaults or {}),
            options=list(options),
            go=textwrap.indent(textwrap.dedent(go).strip("\n"), " " * 8),
        ))
    os.chmod(path, os.stat(path).st_mode | stat.S_IEXEC)
    return path
