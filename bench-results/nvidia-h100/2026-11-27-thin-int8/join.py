# ruff: noqa
"""Probe: packed transposes with one joined store (JOIN) and thin 1-/2-byte matrices packed (PACK_THIN)."""
import importlib, json, os, statistics, sys
import torch
import densela as dl
from densela.bench.timing import gpu_median_ms
from densela.tuning import TileConfig

TR = importlib.import_module("densela.transpose")
LAUNCH = importlib.import_module("densela._launch")
OUT = os.path.join(os.environ.get("OUT", "."), "join.jsonl")


def ms(fn):
    return gpu_median_ms(fn, warmup_ms=5.0, rep_ms=40.0)


def rec(**row):
    with open(OUT, "a") as f:
        f.write(json.dumps(row) + "\n")
    print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in row.items()), flush=True)


x = torch.empty(256 * 2**20 // 4, device="cuda"); y = torch.empty_like(x)
copy = 2 * x.numel() * 4 / ms(lambda: y.copy_(x)) / 1e6
del x, y
rec(group="copy", gbs=copy, device=torch.cuda.get_device_name())

ORIG = TR.transpose_tiles


def variant(join, thin, cfg=None):
    TR.JOIN_STORES, TR.PACK_THIN = join, thin
    TR.transpose_tiles = ORIG if cfg is None else (lambda m, n, sm, sn, size, pack=1: cfg if pack > 1 else ORIG(m, n, sm, sn, size, pack))
    LAUNCH.PLANS.clear()


def laid_out(shape, dtype, layout):
    x = torch.randint(-128, 127, shape if layout == "row" else shape[::-1], device="cuda", dtype=torch.int16).to(dtype)
    return x if layout == "row" else x.T

shapes = [(torch.int8, s) for s in [(100, 700000), (700000, 100), (8192, 8192), (65536, 1024), (1024, 65536)]]
shapes += [(torch.bfloat16, s) for s in [(100, 100000), (100000, 100), (8192, 4096), (32768, 1024), (1024, 32768)]]
VARIANTS = {"base": (False, False), "join": (True, False), "thin": (True, True), "thin_sep": (False, True)}
THIN_CFGS = [(128, 32, 4), (128, 16, 4), (128, 16, 2), (128, 64, 4), (128, 64, 8), (128, 32, 8), (128, 32, 2), (64, 32, 4), (64, 64, 4), (128, 128, 8), (128, 8, 2)]
which = sys.argv[1:] or ["variants", "sweep"]
for dtype, shape in shapes:
    for layout in ("row", "col"):
        x = laid_out(shape, dtype, layout)
        nb = 2 * x.numel() * x.element_size()
        pct = lambda t: nb / t / 1e6 / copy * 100
        if "variants" in which:
            times, exact = {}, {}
            for _ in range(3):
                for name, (j, t) in VARIANTS.items():
                    variant(j, t)
                    times.setdefault(name, []).append(ms(lambda: dl.transpose(x)))
            for name, (j, t) in VARIANTS.items():
                variant(j, t)
                exact[name] = bool(torch.equal(dl.transpose(x), x.T))
            variant(True, True)
            packed = TR._packed(x, torch.empty_like(x.T)) is not None
            t_torch = ms(lambda: x.t().contiguous())
            rec(group="variants", dtype=str(dtype), shape=list(shape), layout=layout, packed_now=packed, exact=exact,
                pct={k: round(pct(statistics.median(v)), 1) for k, v in times.items()}, torch_pct=round(pct(t_torch), 1))
        if "sweep" in which and dtype == torch.int8 and min(shape) == 100 or ("sweep" in which and dtype == torch.bfloat16 and min(shape) == 100):
            times = {}
            for _ in range(3):
                for c in THIN_CFGS:
                    variant(True, True, TileConfig(*c))
                    try:
                        times.setdefault(c, []).append(ms(lambda: dl.transpose(x)))
                    except Exception as e:
                        print("skip", c, str(e)[:200])
            variant(True, True)
            res = {str(list(c)): round(pct(statistics.median(v)), 1) for c, v in times.items()}
            best = max(res, key=res.get)
            rec(group="sweep", dtype=str(dtype), shape=list(shape), layout=layout, best=best, best_pct=res[best], pct=res)
        del x
        torch.cuda.empty_cache()
