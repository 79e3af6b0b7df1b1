export PYTHONUNBUFFERED=1; unset TRITON_INTERPRET
for t in .bis/20056a9 .bis/b6f7116 .bis/2ad3abe .bis/p7e .bis/7e86bdd .bis/cf6695e .bis/2b1652a .new2; do
  echo "== $t"
  PYTHONPATH=$t/src python3 .br/cfgs.py $t 2>&1 | grep -v Warn
  python3 scripts/ab-trees.py --trees .old/src $t/src --gemm 1054x1054x1054,1058x1058x1058 --layouts nn --dtype float32 --precision ieee --seconds 0.5 2>&1 | grep "^gemm"
done
