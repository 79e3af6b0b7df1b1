"""Host-side profile of one warm LU call (cProfile), to see what the driver spends between launches."""

from __future__ import annotations

import cProfile
import pstats
import sys

import torch

import densela as dl

n = int(sys.argv[1]) if len(sys.argv) > 1 else 2048
a = torch.randn(n, n, dtype=torch.float64, device="cuda")
dl.lu_factor_ex(a)
torch.cuda.synchronize()
profiler = cProfile.Profile()
profiler.enable()
dl.lu_factor_ex(a)
torch.cuda.synchronize()
profiler.disable()
pstats.Stats(profiler).sort_stats("tottime").print_stats(18)
