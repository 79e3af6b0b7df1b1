#!/usr/bin/env bash
# Session 56 call 5: lab lu-batched again at the same code (b93b440's kernels; docs commit), the run-to-run spread.
export PYTHONUNBUFFERED=1 DENSELA_GIT_COMMIT=$(cat .br/commit) PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 330 python3 -m densela.cli bench lu-batched --max-seconds 1 --quiet --out $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT > $OUT/lab.log 2>&1
echo "lab rc $?"; rm -f $OUT/lab-*/*.png; cp $OUT/lab.log $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT/run.log
grep -E "issue|  no|below" $OUT/lab.log | tail -5
