#!/bin/sh
# Which evaluation groups disagree most with a data file's scores.
#
# Usage: tuning/scripts/group_gains.sh DATA [TRINE_TUNE]
#
# Fits the scores of DATA (lambda 0: the search scores alone, no results) once with only
# `material` and `tempo` free (the baseline: they absorb a difference of scale and a side-to-move
# bias), then once per other group with that group free as well, and prints every group with the
# validation error it reaches, best first. The groups whose freedom lowers the error most are where
# Trine's weights and the scores disagree most.
set -eu
data=$1
tune=${2:-target/release/trine-tune}
groups=$($tune --list-groups | cut -d' ' -f1)
for g in $groups; do
    err=$($tune --data "$data" --lambda 0 --epochs 1000 --patience 100 --report-every 1000 \
        --only material tempo "$g" --out /dev/null 2>&1 |
        sed -n 's/^Training error .*validation error .* -> \(.*\)\.$/\1/p')
    echo "$g $err"
done | sort -k2 -n
