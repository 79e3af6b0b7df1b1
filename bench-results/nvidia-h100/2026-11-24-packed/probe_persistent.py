"""Persistent transposes with Triton's software pipelining (tl.range num_stages) against densela's one-tile
programs, float32 thin and square-ish shapes, bit for bit; % of the copy bandwidth measured in the same run."""

import json
import os

import torch
import triton
import triton.language as tl
import triton.testing

import densela as dl
from densela.kernels.elementwise import multiple, tile_pointers


@triton.jit
def persistent_transpose(a_ptr, out_ptr, M, N, sam, san, som, son, HINTS: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, STAGES: tl.constexpr):
    M, N = multiple(M, HINTS[0]), multiple(N, HINTS[1])
    sam, san = multiple(sam, HINTS[2]), multiple(san, HINTS[3])
    som, son = multiple(som, HINTS[4]), multiple(son, HINTS[5])
    pid = tl.program_id(0)
    nprog = tl.num_programs(0)
    tiles_n = tl.cdiv(N, BLOCK_N)
    tiles = tl.cdiv(M, BLOCK_M) * tiles_n
    for t in tl.range(pid, tiles, nprog, num_stages=STAGES):
        row0 = (t // tiles_n) * BLOCK_M
        col0 = (t % tiles_n) * BLOCK_N
        a_ptrs, a_mask = tile_pointers(a_ptr, row0, col0, M, N, sam, san, False, BLOCK_M, BLOCK_N, 1)
        out_ptrs, out_mask = tile_pointers(out_ptr, col0, row0, N, M, som, son, False, BLOCK_N, BLOCK_M, 1)
        x = tl.load(a_ptrs, mask=a_mask)
        tl.store(out_ptrs, tl.trans(x), mask=out_mask)


def ms(fn):
    return triton.testing.do_bench(fn, warmup=5, rep=50)


x = torch.empty(256 * 2**20 // 4, device="cuda")
y = torch.empty_like(x)
copy = 2 * x.numel() * 4 / ms(lambda: y.copy_(x)) / 1e6
del x, y
sms = torch.cuda.get_device_properties(0).multi_processor_count
out_file = os.path.join(os.environ.get("OUT", "."), "persistent.jsonl")
TR = __import__("importlib").import_module("densela.transpose")
for shape in [(100000, 100), (100, 100000), (8192, 4096)]:
    for layout in ("row", "col"):
        a = torch.randn(shape if layout == "row" else shape[::-1], device="cuda")
        a = a if layout == "row" else a.T
        nbytes = 2 * a.numel() * 4
        ref = a.T.contiguous() if layout == "row" else a.T.T.contiguous().T
        cur = ms(lambda: dl.transpose(a))
        rows = []
        out = torch.empty_like(ref)
        m, n = a.shape
        strides = (*a.stride(), *out.stride())
        hints = TR._hints(m, n, strides, 4)
        base = TR.transpose_tiles(m, n, *a.stride(), 4)
        for bm, bn, warps in {tuple(base), (64, 64, 4), (128, 128, 8), (64, 128, 4), (128, 64, 4), (32, 128, 4), (128, 32, 4)}:
            tiles = triton.cdiv(m, bm) * triton.cdiv(n, bn)
            for per_sm in (1, 2, 4, 8):
                for stages in (1, 2, 3):
                    grid = (min(tiles, per_sm * sms),)
                    out.fill_(float("nan"))

                    def run():
                        persistent_transpose[grid](a, out, m, n, *strides, HINTS=hints, BLOCK_M=bm, BLOCK_N=bn,
                                                   STAGES=stages, num_warps=warps)

                    try:
                        run()
                        exact = bool(torch.equal(out, ref))
                        t = ms(run)
                    except Exception as e:  # noqa: BLE001
                        print("skip", bm, bn, warps, per_sm, stages, type(e).__name__)
                        continue
                    rows.append(dict(shape=list(shape), layout=layout, cfg=[bm, bn, warps], per_sm=per_sm,
                                     stages=stages, exact=exact, pct=nbytes / t / 1e6 / copy * 100))
        with open(out_file, "a") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        best = max(rows, key=lambda r: r["pct"])
        print(shape, layout, f"current {nbytes / cur / 1e6 / copy * 100:.1f}%  persistent best {best['pct']:.1f}% "
              f"{best['cfg']} per_sm={best['per_sm']} stages={best['stages']} exact={all(r['exact'] for r in rows)}", flush=True)
