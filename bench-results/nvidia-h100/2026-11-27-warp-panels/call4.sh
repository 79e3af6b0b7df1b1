export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
R=$PWD
cd .br/trees/new
python3 -m pytest tests -q -p no:cacheprovider --rootdir "$PWD" --collect-only 2>/dev/null | grep "::" > $OUT/all.txt
wc -l < $OUT/all.txt
sed -n '148p;227p;244p;245p;272p;411p;412p' $OUT/all.txt > $OUT/fail.txt; cat $OUT/fail.txt
mapfile -t f < $OUT/fail.txt
PYTHONPATH=src timeout 150 python3 -m pytest -q -p no:cacheprovider --rootdir "$PWD" -x --tb=short "${f[@]}" 2>&1 | tail -40 > $OUT/fail.log; tail -40 $OUT/fail.log
mapfile -t ids < $R/.br/rest.txt
OUT=$OUT/t SHARDS=16 SHARD_TIMEOUT=330 timeout 350 bash scripts/gpu-tests.sh "${ids[@]}" > /dev/null 2>&1; echo "tests rc $?"
cat $OUT/t/pytest-gpu.log | tail -22; grep -h -E "^(FAILED|ERROR)" $OUT/t/pytest-shard-*.log | head -20
cd $OUT && tar czf tests.tgz t && rm -rf t
