#!/usr/bin/env bash
# Session 66 call 7: the tests of tests/test_gemm.py that call 6's shards did not reach (330 s each), at HEAD.
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
t0=$(date +%s); mkdir -p $OUT/tests
for i in $(seq 0 15); do
  mapfile -t ids < <(awk -v i="$i" 'NR % 16 == i' .br/s66/rest-ids.txt)
  timeout 200 python3 -m pytest -q -p no:cacheprovider --rootdir "$PWD" "${ids[@]}" > $OUT/tests/rest-$i.log 2>&1 &
done
wait
echo "done $(( $(date +%s) - t0 )) s"; for i in $(seq 0 15); do tail -n 1 $OUT/tests/rest-$i.log | cut -c1-100; done
grep -h "FAILED" $OUT/tests/*.log | head
(cd $OUT && tar czf call7-gpu-tests-gemm-rest.tar.gz tests && rm -rf tests)
