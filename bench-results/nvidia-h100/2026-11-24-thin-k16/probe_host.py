"""Probe: where the host time of a replayed float32 5000 x 50 x 5000 matmul goes (A copied for TMA)."""
import cProfile, pstats, io
import torch
import densela as dl

torch.manual_seed(0)
a = torch.randn(5000, 50, device="cuda")
b = torch.randn(50, 5000, device="cuda")
ap = torch.empty(5000, 52, device="cuda")[:, :50]
ap.copy_(a)
for x in (a, ap):
    for _ in range(5):
        dl.matmul(x, b)
    torch.cuda.synchronize()
    pr = cProfile.Profile()
    pr.enable()
    for _ in range(200):
        dl.matmul(x, b)
    pr.disable()
    torch.cuda.synchronize()
    s = io.StringIO()
    pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(22)
    print(s.getvalue()[:6000])
