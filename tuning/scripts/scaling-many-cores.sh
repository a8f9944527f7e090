#!/usr/bin/env bash
# Thread scaling on a many-core machine, every SMP mode, in one `trine scale` run sized for about
# eight minutes on a 16-core machine of about 1 Mnps a core (one thread then needs 2-4 s a
# position at depth 20):
#
#     tuning/scripts/scaling-many-cores.sh OUTDIR [DEPTH] [THREADS] [LIMIT_S]
#
# DEPTH (default 20) should make one thread take 3 s or more a position; THREADS defaults to
# 1,16,8,4,2 (the most threads first, so that a run cut short still has them); the modes run in
# the order hybrid, lazy, ybw, and one thread is measured once for all of them. LIMIT_S (default
# 480) bounds the run; `trine scale` writes every search and every row to its log as it ends, so
# a run past the limit keeps what it measured (the CSV and SVG are written only at the end).
# Each search stops after SEARCH_LIMIT_S seconds (default 60), so that one position that runs
# away costs a minute and shows in the log with the depth it reached (`trine scale` then exits 1).
# TRINE=path uses a binary built beforehand (otherwise `cargo build --release`). OUTDIR receives
# machine.txt (cores, CPU, commit), bench.txt (one-thread `trine bench`), scale.log, and
# scale.csv and scale.svg; the CSV's columns are described in docs/scaling.md.
set -euo pipefail

out=${1:?usage: scaling-many-cores.sh OUTDIR [DEPTH] [THREADS] [LIMIT_S]}
depth=${2:-20}
threads=${3:-1,16,8,4,2}
limit=${4:-480}
search_limit=${SEARCH_LIMIT_S:-60}
mkdir -p "$out"

bin=${TRINE:-}
if [ -z "$bin" ]; then
    cargo build --release --bin trine >"$out/build.log" 2>&1
    bin=target/release/trine
fi
{
    echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    echo "cores $(nproc)"
    grep -m1 'model name' /proc/cpuinfo || true
    date -u +%Y-%m-%dT%H:%M:%SZ
} >"$out/machine.txt"
"$bin" bench >"$out/bench.txt" 2>&1

status=0
timeout "$limit" "$bin" scale --threads "$threads" --depth "$depth" --mode hybrid,lazy,ybw \
    --search-limit-s "$search_limit" --hash 256 --csv "$out/scale.csv" --svg "$out/scale.svg" \
    >"$out/scale.log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
    echo "scale ended with status $status (1: a search ended before the depth; 124: past ${limit} s);" \
        "the rows it finished are the 'row' lines of $out/scale.log" | tee -a "$out/scale.log"
fi
exit "$status"
