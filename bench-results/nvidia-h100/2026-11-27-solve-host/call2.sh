export PYTHONPATH=src; unset TRITON_INTERPRET; rm -rf ~/.cache/densela; nvidia-smi --query-gpu=name --format=csv,noheader; timeout 300 python3 .br/s60/probe-solve2.py 2>&1 | grep -v Warn | tail -8
