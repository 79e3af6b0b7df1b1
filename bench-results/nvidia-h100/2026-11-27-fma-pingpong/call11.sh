#!/usr/bin/env bash
# Session 63 call 11: float32 FMA ping-pong with two consumer groups of eight warps (registers 96 at launch, the
# second group 112), probe-pp8.py against the tables; a hang would be a register deadlock (timeout).
export PYTHONUNBUFFERED=1 PYTHONPATH=src
unset TRITON_INTERPRET
rm -rf ~/.cache/densela
timeout 240 python3 .br/s63/probe-pp8.py > $OUT/probe-pp8.txt 2>&1; echo "rc=$?"
grep -v -i warn $OUT/probe-pp8.txt | tail -40
