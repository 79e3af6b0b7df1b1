export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
R=$PWD
(cd .br/trees/new && OUT=$OUT/t SHARDS=16 SHARD_TIMEOUT=260 timeout 280 bash scripts/gpu-tests.sh tests/test_lu.py tests/test_kernels_compile.py -k "batch or blocked or replay or writes_every or warp or panel or substitution or large" > /dev/null 2>&1; echo "tests rc $?")
cat $OUT/t/pytest-gpu.log | tail -22; grep -h -E "^(FAILED|ERROR)" $OUT/t/pytest-shard-*.log | head -20
cd $OUT && tar czf tests.tgz t && rm -rf t && cd $R
export DENSELA_GIT_COMMIT=63a21ba
PYTHONPATH=.br/trees/new/src timeout 250 python3 -m densela.cli bench lu-batched --max-seconds 1 --quiet --out $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT > $OUT/lab.log 2>&1
echo "lab rc $?"; tail -30 $OUT/lab.log
cd $OUT && rm -f lab-*/*.png && cp lab.log lab-*/run.log && tar czf lab.tgz lab-* && rm -rf lab-*
