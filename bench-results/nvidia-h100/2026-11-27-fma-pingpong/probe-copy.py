"""Probe (session 63): padded-row copies of two odd float32 operands (pa2-sgemm sizes): copy_rows_kernel (2-D tiles,
element loads from rows at odd strides) against a flat copy (16-byte loads of the contiguous source, scattered stores),
GPU time of CUDA-graph replays (L2 flushed), JSON lines to $OUT/probe-copy.jsonl."""
import json, os
import torch
import triton
import triton.language as tl
import importlib
G = importlib.import_module("densela.gemm")
from densela.tuning.tune import graph_ms


@triton.jit
def flat_copy(a_ptr, b_ptr, oa_ptr, ob_ptr, TOTAL_A, K_A, LD_A, TOTAL_B, K_B, LD_B, PROGS_A, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    if pid < PROGS_A:
        src, dst, total, k, ld, p = a_ptr, oa_ptr, TOTAL_A, K_A, LD_A, pid
    else:
        src, dst, total, k, ld, p = b_ptr, ob_ptr, TOTAL_B, K_B, LD_B, pid - PROGS_A
    offs = p * BLOCK + tl.arange(0, BLOCK)
    mask = offs < total
    x = tl.load(src + offs, mask=mask)
    i = offs // k
    tl.store(dst + offs + i * (ld - k), x, mask=mask)


rows = []
for n in (1015, 1025, 1057, 1099):
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    ld = triton.cdiv(n, 16) * 16
    oa = torch.zeros(n, ld, device="cuda")
    ob = torch.zeros(n, ld, device="cuda")
    res = {"n": n}
    res["copy_rows"] = graph_ms(lambda: G._padded_rows(a, b, True, True), rep_ms=30)[0] * 1e3
    for block, warps in ((1024, 4), (2048, 4), (4096, 8), (8192, 8)):
        progs = triton.cdiv(n * n, block)
        f = lambda: flat_copy[(2 * progs,)](a, b, oa, ob, n * n, n, ld, n * n, n, ld, progs, BLOCK=block, num_warps=warps)  # noqa: E731
        f()
        assert torch.equal(oa[:, :n], a) and torch.equal(ob[:, :n], b)
        res[f"flat{block}w{warps}"] = graph_ms(f, rep_ms=30)[0] * 1e3
    res["torch2"] = graph_ms(lambda: (oa[:, :n].copy_(a), ob[:, :n].copy_(b)), rep_ms=30)[0] * 1e3
    rows.append(res)
    print({k: (round(v, 2) if isinstance(v, float) else v) for k, v in res.items()}, flush=True)
with open(os.path.join(os.environ.get("OUT", "."), "probe-copy.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
