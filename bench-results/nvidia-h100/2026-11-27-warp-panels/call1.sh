export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
mkdir -p $OUT/b64 $OUT/b32 $OUT/s64 $OUT/s32
OUT=$OUT/b64 timeout 170 python3 scripts/ab-trees.py --trees src .br/trees/mid/src .br/trees/new/src --lu 10000x128,1000x128,1000x96,10000x100 --dtype float64 --seconds 1 2>&1 | grep -v Warn | tee $OUT/b64.log
OUT=$OUT/b32 timeout 140 python3 scripts/ab-trees.py --trees src .br/trees/mid/src .br/trees/new/src --lu 10000x128,1000x128,10000x100 --dtype float32 --seconds 1 2>&1 | grep -v Warn | tee $OUT/b32.log
OUT=$OUT/s64 timeout 120 python3 scripts/ab-trees.py --trees src .br/trees/new/src --lu 4096,8192 --dtype float64 --seconds 1 2>&1 | grep -v Warn | tee $OUT/s64.log
OUT=$OUT/s32 timeout 100 python3 scripts/ab-trees.py --trees src .br/trees/new/src --lu 4096,8192 --dtype float32 --seconds 1 2>&1 | grep -v Warn | tee $OUT/s32.log
