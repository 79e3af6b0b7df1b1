"""One densela float32 product and one cuBLAS product of the same operands, for Nsight Compute.

    ncu --launch-skip 6 --launch-count 2 -k regex:gemm --section SpeedOfLight --section ComputeWorkloadAnalysis \
        --section SchedulerStats --section WarpStateStats --section InstructionStats \
        --section MemoryWorkloadAnalysis_Tables --section SourceCounters -o $OUT/gemm -f \
        python3 scripts/gemm-profile.py [N or MxNxK] [LAYOUT] [PRECISION] [DTYPE]
    ncu -i $OUT/gemm.ncu-rep --page details                       # the sections, both kernels
    ncu -i $OUT/gemm.ncu-rep --page source --csv --print-source sass -k regex:gemm_ws   # stalls per instruction

Three rounds of both calls come first (compilation, matmul's recorded plan, cuBLAS's heuristics); the fourth
is the one profiled (``--launch-skip 6``: products whose operands need no copy launch one kernel each).
LAYOUT: two letters, n row-major, t a transposed view, for A and B (default nn); PRECISION default "ieee" (float32
only); DTYPE default float32.
"""

import sys

import torch

import densela

shape = sys.argv[1] if len(sys.argv) > 1 else "4096"
m, n, k = (int(x) for x in shape.split("x")) if "x" in shape else (int(shape),) * 3
layout = sys.argv[2] if len(sys.argv) > 2 else "nn"
precision = sys.argv[3] if len(sys.argv) > 3 else "ieee"
dtype = getattr(torch, sys.argv[4] if len(sys.argv) > 4 else "float32")
torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
a = torch.randn(m, k, device="cuda", dtype=dtype)
b = torch.randn(k, n, device="cuda", dtype=dtype)
if layout[0] == "t":
    a = a.T.contiguous().T
if layout[1] == "t":
    b = b.T.contiguous().T
for _ in range(4):
    densela.matmul(a, b, precision=precision if dtype == torch.float32 else None)
    torch.matmul(a, b)
torch.cuda.synchronize()
