"""Host time of one densela.matmul call at the issue-4 target sizes (the call alone, the GPU idle before it),
against torch.matmul, and what the lab's flushed do_bench sees for each against CUDA-graph replays of the
same call: whether host time leaks into the lab's rows where it exceeds the L2 flush."""

import time

import torch
import triton.testing

import densela as dl


def host_us(fn, reps=30):
    fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    samples.sort()
    return samples[len(samples) // 2]


def graph_us(fn):
    fn()
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return triton.testing.do_bench(g.replay, warmup=25, rep=200) * 1e3


flush = triton.testing.do_bench(lambda: None, warmup=5, rep=50) * 1e3
print(f"do_bench of an empty call (the flush and events): {flush:.1f} us")
for dtype, precision in ((torch.float16, None), (torch.bfloat16, None), (torch.float32, "tf32"), (torch.float32, "ieee")):
    for n in (2048, 4096, 8192):
        a = torch.randn(n, n, device="cuda").to(dtype)
        b = torch.randn(n, n, device="cuda").to(dtype)
        kw = {"precision": precision} if precision else {}
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        d = lambda: dl.matmul(a, b, **kw)  # noqa: E731
        t = lambda: torch.matmul(a, b)  # noqa: E731
        row = dict(host_dl=host_us(d), host_torch=host_us(t), lab_dl=triton.testing.do_bench(d, rep=300) * 1e3,
                   lab_torch=triton.testing.do_bench(t, rep=300) * 1e3, graph_dl=graph_us(d), graph_torch=graph_us(t))
        print(f"{str(dtype)[6:]:8} {precision or '':5} {n:5}  " + "  ".join(f"{k} {v:7.1f}" for k, v in row.items())
              + f"  lab ratio {row['lab_torch'] / row['lab_dl']:.3f} graph ratio {row['graph_torch'] / row['graph_dl']:.3f}",
              flush=True)
