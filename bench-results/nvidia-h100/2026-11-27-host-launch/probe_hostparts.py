"""Session 57: host cost of the pieces of a replayed call (GPU host): allocations, Triton's launcher, TMA descriptor
encoding, replay keys; cProfile of replayed matmul (TF32 1000^3 tn, bf16 1000^3) and of a small batched lu_factor."""
import cProfile, io, pstats, time, importlib
import torch
import densela as dl
from densela import _launch
from densela import lu as L
G = importlib.import_module("densela.gemm")

def per_call(fn, n=20000):
    for _ in range(200):
        fn()
    t = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - t) / n * 1e6

dev = torch.device("cuda", 0)
x = torch.empty(8000, dtype=torch.float64, device=dev)
print("empty_strided 3-D", round(per_call(lambda: torch.empty_strided((1000, 8, 8), (64, 1, 8), dtype=torch.float64, device=dev)), 2))
print("empty 1-D int32", round(per_call(lambda: torch.empty(1000, dtype=torch.int32, device=dev)), 2))
print("empty 1-D int32 device idx", round(per_call(lambda: torch.empty(1000, dtype=torch.int32, device="cuda:0")), 2))
print("new_empty", round(per_call(lambda: x.new_empty(1000)), 2))
print("as_strided", round(per_call(lambda: x.as_strided((1000, 8), (8, 1), 0)), 2))
print("view dtype", round(per_call(lambda: x.view(torch.int32)), 2))
print("data_ptr", round(per_call(lambda: x.data_ptr()), 3))
print("getCurrentRawStream", round(per_call(lambda: torch._C._cuda_getCurrentRawStream(torch._C._cuda_getDevice())), 3))
a = torch.randn(1000, 8, 8, dtype=torch.float64, device=dev)
print("replay_key lu", round(per_call(lambda: _launch.replay_key("lu_factor", (), (None, 1), (a,), None)), 2))
print("signature", round(per_call(lambda: _launch.signature(a)), 2))
# a replayed launch through Launcher.run against the raw launch
info = torch.zeros(1000, dtype=torch.int32, device=dev)
flag = torch.zeros(1, dtype=torch.int32, device=dev)
L._launch_flag(info, flag); L._launch_flag(info, flag)
entry = next(iter(L._ANY.compiled.values()))
compiled, tail = entry
args = (info, 1000, flag)
print("Launcher.__call__ any_nonzero", round(per_call(lambda: L._launch_flag(info, flag)), 2))
print("Launcher.run", round(per_call(lambda: L._ANY.run(entry, (1,), args, {})), 2))
run = compiled.run
st = torch._C._cuda_getCurrentRawStream(0)
print("CudaLauncher.__call__", round(per_call(lambda: run(1, 1, 1, st, compiled.function, compiled.packed_metadata, None, None, None, *args, *tail)), 2))
print("raw launch", round(per_call(lambda: run.launch(1, 1, 1, st, compiled.function, run.launch_cooperative_grid, run.launch_pdl, None, None, compiled.packed_metadata, None, None, None, *args, *tail)), 2))
iargs = (info.data_ptr(), 1000, flag.data_ptr())
print("raw launch int ptrs", round(per_call(lambda: run.launch(1, 1, 1, st, compiled.function, run.launch_cooperative_grid, run.launch_pdl, None, None, compiled.packed_metadata, None, None, None, *iargs, *tail)), 2))
torch.cuda.synchronize()
from densela.bench.timing import host_us
torch.backends.cuda.matmul.allow_tf32 = True
for name, (aa, bb, prec) in {
    "tf32-1000-tn": (torch.randn(1000, 1000, device=dev).T, torch.randn(1000, 1000, device=dev), "tf32"),
    "tf32-1000-nt": (torch.randn(1000, 1000, device=dev), torch.randn(1000, 1000, device=dev).T, "tf32"),
    "bf16-1000-nn": (torch.randn(1000, 1000, device=dev, dtype=torch.bfloat16), torch.randn(1000, 1000, device=dev, dtype=torch.bfloat16), None),
    "f32-5000x50x5000": (torch.randn(5000, 50, device=dev), torch.randn(50, 5000, device=dev), "ieee"),
}.items():
    print(name, "dl host", round(host_us(lambda: dl.matmul(aa, bb, precision=prec), 500), 1),
          "torch host", round(host_us(lambda: torch.matmul(aa, bb), 500), 1), flush=True)
    prof = cProfile.Profile(); prof.enable()
    for _ in range(500):
        dl.matmul(aa, bb, precision=prec)
    prof.disable(); torch.cuda.synchronize()
    s = io.StringIO(); pstats.Stats(prof, stream=s).sort_stats("tottime").print_stats(14); print(s.getvalue()[-3500:])
