export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET; export PYTHONPATH=src
rm -rf ~/.cache/densela
export DENSELA_GIT_COMMIT=$(cat .br/commit)
timeout 270 python3 -m densela.cli bench lu-large --max-seconds 1 --quiet --out $OUT/lab-lu-large-$DENSELA_GIT_COMMIT > $OUT/lab.log 2>&1
echo "lab rc $?"; grep -E "densela|issue|  no|rows in" $OUT/lab.log
rm -f $OUT/lab-*/*.png; cp $OUT/lab.log $OUT/lab-lu-large-$DENSELA_GIT_COMMIT/run.log
