export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
R=$PWD
mkdir -p $OUT/w64 $OUT/w32
OUT=$OUT/w64 timeout 100 python3 scripts/ab-trees.py --trees .br/trees/new/src .br/trees/w64/src --lu 10000x64,1000x64,10000x48,1000x48 --dtype float64 --lu-op lu_factor --seconds 1 2>&1 | grep -v Warn | tee $OUT/w64.log
OUT=$OUT/w32 timeout 80 python3 scripts/ab-trees.py --trees .br/trees/new/src .br/trees/w64/src --lu 10000x64,1000x64 --dtype float32 --lu-op lu_factor --seconds 1 2>&1 | grep -v Warn | tee $OUT/w32.log
(cd .br/trees/new && OUT=$OUT/t SHARDS=16 SHARD_TIMEOUT=330 timeout 350 bash scripts/gpu-tests.sh $(cat $R/.br/rest.txt) > /dev/null 2>&1; echo "tests rc $?")
cat $OUT/t/pytest-gpu.log | tail -22; grep -h -E "^(FAILED|ERROR)" $OUT/t/pytest-shard-*.log | head -20
cd $OUT && tar czf tests.tgz t && rm -rf t
