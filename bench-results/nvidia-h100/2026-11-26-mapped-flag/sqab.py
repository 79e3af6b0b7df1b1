"""A/B in rounds: the in-place square blocks' warps (64 x 64 tiles) for float32 squares and the gcd >= 32
rectangles (whose t x t blocks take the same kernel), % of the 2 GiB copy, do_bench medians, bit-exact checks."""
import importlib, json, os, statistics
import torch, triton.testing
import densela as dl
from densela.tuning import TileConfig
TR = importlib.import_module("densela.transpose")
LAUNCH = importlib.import_module("densela._launch")
OUT = os.path.join(os.environ.get("OUT", "."), "sqab.jsonl")
ms = lambda fn, rep=60: triton.testing.do_bench(fn, warmup=5, rep=rep)
big = torch.empty(2**31 // 4, device="cuda"); big2 = torch.empty_like(big)
copy = 2 * big.numel() * 4 / ms(lambda: big2.copy_(big), 200) / 1e6
del big, big2
print(f"copy 2 GiB {copy:.0f} GB/s", flush=True)
orig = TR.square_tiles
cfgs = {"4w": TileConfig(64, 64, 4), "2w": TileConfig(64, 64, 2), "8w": TileConfig(64, 64, 8)}
shapes = [(5000, 5000), (8192, 8192), (4096, 4096), (32768, 1024), (8192, 2048), (8192, 3072)]
res = {}
for dt in (torch.float32, torch.float64):
    for shape in shapes:
        x = torch.randn(*shape, device="cuda").to(dt)
        nbytes = 2 * x.numel() * x.element_size()
        for rnd in range(3):
            for name, cfg in (cfgs.items() if rnd % 2 == 0 else reversed(list(cfgs.items()))):
                TR.square_tiles = lambda itemsize, cfg=cfg: cfg
                LAUNCH.PLANS.clear(); LAUNCH.REPLAY_GRAPHS.clear()
                y = x.clone()
                exact = bool(torch.equal(dl.transpose_(y), x.T))
                y = x.clone()
                flip = {"x": y}
                def again():
                    flip["x"] = dl.transpose_(flip["x"])
                t = ms(again)
                pct = nbytes / t / 1e6 / copy * 100
                res.setdefault((str(dt)[6:], shape, name), []).append(pct)
                with open(OUT, "a") as f:
                    f.write(json.dumps(dict(dtype=str(dt), shape=shape, cfg=name, round=rnd, exact=exact, ms=t, pct=pct)) + "\n")
                if not exact:
                    print("NOT EXACT", shape, name)
TR.square_tiles = orig
for dt in ("float32", "float64"):
    for shape in shapes:
        print(dt, shape, "  ".join(f"{n}: {statistics.median(res[(dt, shape, n)]):.1f} ({min(res[(dt, shape, n)]):.1f}-{max(res[(dt, shape, n)]):.1f})" for n in cfgs))
