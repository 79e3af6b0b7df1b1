export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
rm -rf ~/.cache/densela
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=$PWD
mkdir -p $OUT/mid
OUT=$OUT/mid timeout 110 python3 scripts/ab-trees.py --trees .br/trees/new/src .br/trees/w64/src --lu 2000x64,4096x64,2000x48,4096x48 --dtype float64 --lu-op lu_factor --seconds 1 2>&1 | grep -v Warn | tee $OUT/mid.log
PYTHONPATH=src timeout 100 python3 -m pytest -q -p no:cacheprovider tests/test_lu.py -k "warp_sized or batch_through or writes_every" 2>&1 | tail -3
export DENSELA_GIT_COMMIT=c8dedbc
PYTHONPATH=src timeout 250 python3 -m densela.cli bench lu-batched --max-seconds 1 --quiet --out $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT > $OUT/lab.log 2>&1
echo "lab rc $?"; grep -E "float64 +densela|issue|  no" $OUT/lab.log
rm -f $OUT/lab-*/*.png; cp $OUT/lab.log $OUT/lab-lu-batched-$DENSELA_GIT_COMMIT/run.log
