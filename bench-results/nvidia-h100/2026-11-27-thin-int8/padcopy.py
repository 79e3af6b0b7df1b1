# ruff: noqa
"""Probe: padded copies of odd float32 operands (1025^2 .. 1099^2, rows of odd stride -> rows of a multiple of 16):
densela's _aligned_copy (the transpose kernel), torch's copy, and a plain row copy kernel (one or both operands a
launch), GPU time of graph replays (L2 flushed); then the whole product with the copies."""
import importlib, json, os
import torch, triton
import triton.language as tl
from densela.tuning import tune as T

G = importlib.import_module("densela.gemm")
OUT = os.path.join(os.environ.get("OUT", "."), "padcopy.jsonl")


@triton.jit
def pad2(a_ptr, b_ptr, pa_ptr, pb_ptr, RA, CA, SA, DA, RB, CB, SB, DB, TILES_A, BR: tl.constexpr, BC: tl.constexpr):
    pid = tl.program_id(0)
    if pid < TILES_A:
        src, dst, R, C, S, D, t = a_ptr, pa_ptr, RA, CA, SA, DA, pid
    else:
        src, dst, R, C, S, D, t = b_ptr, pb_ptr, RB, CB, SB, DB, pid - TILES_A
    tiles_c = tl.cdiv(C, BC)
    r = (t // tiles_c) * BR + tl.arange(0, BR)
    c = (t % tiles_c) * BC + tl.arange(0, BC)
    D = D // 16 * 16
    mask = (r[:, None] < R) & (c[None, :] < C)
    x = tl.load(src + r[:, None] * S + c[None, :], mask=mask)
    tl.store(dst + r[:, None] * D + c[None, :], x, mask=mask)


def rec(**row):
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.2f}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)


for n in (1025, 1029, 1057, 1099):
    a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda"); o = torch.empty(n, n, device="cuda")
    st = triton.cdiv(n, 16) * 16
    pa = torch.empty(n, st, device="cuda")[:, :n]; pb = torch.empty(n, st, device="cuda")[:, :n]
    row = {"n": n}
    row["aligned_copy_one"] = T.graph_ms(lambda: G._aligned_copy(a, 16))[0] * 1e3
    row["torch_copy_one"] = T.graph_ms(lambda: pa.copy_(a))[0] * 1e3
    row["torch_copy_two"] = T.graph_ms(lambda: (pa.copy_(a), pb.copy_(b)))[0] * 1e3
    for br, bc, w in ((32, 256, 4), (16, 256, 4), (8, 512, 4), (32, 128, 4), (64, 256, 8), (16, 1024, 8), (4, 1024, 4)):
        tiles = triton.cdiv(n, br) * triton.cdiv(n, bc)
        def one():
            pad2[(tiles,)](a, a, pa, pa, n, n, n, st, n, n, n, st, tiles, BR=br, BC=bc, num_warps=w)
        def two():
            pad2[(2 * tiles,)](a, b, pa, pb, n, n, n, st, n, n, n, st, tiles, BR=br, BC=bc, num_warps=w)
        row[f"k{br}x{bc}w{w}_one"] = T.graph_ms(one)[0] * 1e3
        row[f"k{br}x{bc}w{w}_two"] = T.graph_ms(two)[0] * 1e3
        assert torch.equal(pa, a) and torch.equal(pb, b)
    row["product_tables"] = T.graph_ms(lambda: G.launch_gemm(a, b, None, o, 1.0, 0.0, "ieee"))[0] * 1e3
    cfg = G.gemm_config(n, n, n, torch.float32, "ieee", device=0)
    row["product_on_padded"] = T.graph_ms(lambda: G.launch_gemm(pa, pb, None, o, 1.0, 0.0, "ieee", cfg=cfg))[0] * 1e3
    row["cublas"] = T.graph_ms(lambda: torch.matmul(a, b, out=o))[0] * 1e3
    rec(**row)
