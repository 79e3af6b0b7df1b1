"""Probe: odd float32 FMA sizes, where the time goes and what a fused pad copy / ws path would give (graph replays)."""
import json, os, sys
import torch, triton, triton.language as tl
from triton.testing import do_bench
import importlib; G = importlib.import_module("densela.gemm")
from densela.tuning import GemmConfig as C

OUT = os.environ.get("OUT", ".")
rec = open(os.path.join(OUT, "odd.jsonl"), "w")

@triton.jit
def pad2_kernel(a_ptr, b_ptr, pa_ptr, pb_ptr, RA, CA, SA, SPA, RB, CB, SB, SPB,
                BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    ta = tl.cdiv(RA, BR) * tl.cdiv(CA, BC)
    if pid < ta:
        src, dst, R, Cc, S, SP, t = a_ptr, pa_ptr, RA, CA, SA, SPA, pid
    else:
        src, dst, R, Cc, S, SP, t = b_ptr, pb_ptr, RB, CB, SB, SPB, pid - ta
    SP = tl.multiple_of(SP, 4)
    tc = tl.cdiv(Cc, BC)
    r = (t // tc) * BR + tl.arange(0, BR)
    c = (t % tc) * BC + tl.arange(0, BC)
    m = (r[:, None] < R) & (c[None, :] < Cc)
    x = tl.load(src + r[:, None] * S + c[None, :], mask=m)
    tl.store(dst + r[:, None] * SP + c[None, :], x, mask=m)

def pad2(a, b, pa, pb, br=8, bc=256, w=4):
    ta = triton.cdiv(a.shape[0], br) * triton.cdiv(a.shape[1], bc)
    tb = triton.cdiv(b.shape[0], br) * triton.cdiv(b.shape[1], bc)
    pad2_kernel[(ta + tb,)](a, b, pa, pb, a.shape[0], a.shape[1], a.stride(0), pa.stride(0),
                            b.shape[0], b.shape[1], b.stride(0), pb.stride(0), BR=br, BC=bc, num_warps=w)

def padded(x):
    r, c = x.shape
    return torch.empty(r, (c + 15) // 16 * 16, device=x.device, dtype=x.dtype)[:, :c]

def med(fn):
    fn()
    s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        fn()
    return do_bench(g.replay, warmup=10, rep=60, quantiles=[0.2, 0.5, 0.8])[1] * 1e3


for n in [int(x) for x in sys.argv[1:]]:
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
    out = torch.empty(n, n, device="cuda")
    ref = a.double() @ b.double()
    pa, pb, po = padded(a), padded(b), padded(out)
    pa.copy_(a); pb.copy_(b)
    row = {"n": n}
    row["cublas"] = med(lambda: torch.matmul(a, b))
    row["densela"] = med(lambda: G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"))
    row["copyA_dense"] = med(lambda: G._aligned_copy(a, 16))
    for br, bc, w in [(8, 256, 4), (4, 512, 4), (16, 256, 8), (32, 128, 8), (8, 128, 4), (2, 1024, 4)]:
        row[f"pad2_{br}x{bc}w{w}"] = med(lambda: pad2(a, b, pa, pb, br, bc, w))
    pa.copy_(a); pb.copy_(b)
    row["tiles_on_padded"] = med(lambda: G.launch_gemm(pa, pb, None, out, 1.0, 0.0, "ieee"))
    row["ws_padded_out"] = med(lambda: G.launch_gemm(pa, pb, None, po, 1.0, 0.0, "ieee"))
    row["copy_out"] = med(lambda: out.copy_(po))
    def full_ws():
        pad2(a, b, pa, pb); G.launch_gemm(pa, pb, None, po, 1.0, 0.0, "ieee"); out.copy_(po)
    def full_tiles():
        pad2(a, b, pa, pb); G.launch_gemm(pa, pb, None, out, 1.0, 0.0, "ieee")
    for name, fn in (("full_ws", full_ws), ("full_tiles", full_tiles)):
        out.fill_(float("nan"))
        fn(); torch.cuda.synchronize()
        row["err_" + name] = float((out.double() - ref).norm() / ref.norm())
        row[name] = med(fn)
    out.fill_(float("nan")); G.launch_gemm(a, b, None, out, 1.0, 0.0, "ieee"); torch.cuda.synchronize()
    row["err_densela"] = float((out.double() - ref).norm() / ref.norm())
    rec.write(json.dumps(row) + "\n"); rec.flush()
    cb = row["cublas"]
    print(n, " ".join(f"{k}={v:.1f}" if not k.startswith("err") else f"{k}={v:.1e}" for k, v in row.items() if k != "n"),
          f"| ratio densela {cb/row['densela']:.2f} full_ws {cb/row['full_ws']:.2f} full_tiles {cb/row['full_tiles']:.2f}", flush=True)
