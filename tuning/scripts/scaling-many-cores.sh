#!/usr/bin/env bash
# Thread scaling on a many-core machine, every SMP mode, sized for about eight minutes on a
# 16-core machine of 1.1-1.3 Mnps a core (one thread then needs about 3 s a position at depth 20):
#
#     tuning/scripts/scaling-many-cores.sh OUTDIR [DEPTH] [THREADS] [LIMIT_S]
#
# DEPTH (default 20) should make one thread take 3 s or more a position; THREADS defaults to
# 1,2,4,8,16; LIMIT_S (default 160) bounds each mode's run, so that a mode that runs long costs
# only its own table. TRINE=path uses a binary built beforehand (otherwise `cargo build
# --release`). OUTDIR receives machine.txt (cores, CPU, commit), bench.txt (one-thread `trine
# bench`) and, per mode, scale-MODE.csv, .svg and .log; the CSV's columns are described in
# docs/scaling.md.
set -euo pipefail

out=${1:?usage: scaling-many-cores.sh OUTDIR [DEPTH] [THREADS] [LIMIT_S]}
depth=${2:-20}
threads=${3:-1,2,4,8,16}
limit=${4:-160}
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

failed=0
for mode in lazy hybrid ybw; do
    status=0
    timeout "$limit" "$bin" scale --threads "$threads" --depth "$depth" --mode "$mode" \
        --hash 256 --csv "$out/scale-$mode.csv" --svg "$out/scale-$mode.svg" \
        >"$out/scale-$mode.log" 2>&1 || status=$?
    if [ "$status" -ne 0 ]; then
        echo "$mode: scale ended with status $status (124: past ${limit} s)" | tee -a "$out/scale-$mode.log"
        failed=1
    fi
done
exit "$failed"
