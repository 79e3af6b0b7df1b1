import sys; sys.path.insert(0, 'src')
import torch
import densela.tuning as T
T.warp_specialized = lambda d: True
T.multiprocessors = lambda d: 132
T.shared_memory = lambda d: 232448
shapes = [tuple(int(x) for x in s.split('x')) for s in sys.argv[2:]]
for m, n, k in shapes:
    print((m, n, k), T.choose_gemm_config(m, n, k, getattr(torch, sys.argv[1].split(':')[0]), (sys.argv[1].split(':') + [None])[1], device=None).describe())
