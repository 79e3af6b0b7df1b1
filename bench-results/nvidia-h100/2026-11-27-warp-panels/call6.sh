export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
rm -rf ~/.cache/densela
OUT=$OUT/t SHARDS=16 SHARD_TIMEOUT=430 timeout 450 bash scripts/gpu-tests.sh tests/test_lu.py -k "not (batch or blocked or replay or writes_every or warp or panel or substitution or large) or warp_sized" > /dev/null 2>&1; echo "tests rc $?"
cat $OUT/t/pytest-gpu.log | tail -18; grep -h -E "^(FAILED|ERROR)" $OUT/t/pytest-shard-*.log | head -20
cd $OUT && tar czf tests.tgz t && rm -rf t
