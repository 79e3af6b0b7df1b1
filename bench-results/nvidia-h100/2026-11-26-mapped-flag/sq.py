"""A/B of the in-place square transpose: one program per pair (current) against persistent programs looping
over pairs (transpose.SQUARE_PROGRAMS_PER_SM), across tiles. Bit-exact check per variant; % of the 2 GiB copy."""
import importlib, json, os, sys
import torch, triton.testing
import densela as dl
from densela.tuning import TileConfig
TR = importlib.import_module("densela.transpose")
LAUNCH = importlib.import_module("densela._launch")
OUT = os.path.join(os.environ.get("OUT", "."), "sq.jsonl")

def ms(fn, rep=60):
    return triton.testing.do_bench(fn, warmup=5, rep=rep)

big = torch.empty(2**31 // 4, device="cuda"); big2 = torch.empty_like(big)
copy = 2 * big.numel() * 4 / ms(lambda: big2.copy_(big), 200) / 1e6
del big, big2
print(f"copy 2 GiB {copy:.0f} GB/s", flush=True)
rows = []
shapes = [(5000, torch.float32), (8192, torch.float32), (5000, torch.float64), (8192, torch.float64),
          (8192, torch.bfloat16), (5000, torch.bfloat16)]
orig = TR.square_tiles
for n, dt in shapes:
    x = torch.randn(n, n, device="cuda").to(dt)
    nbytes = 2 * x.numel() * x.element_size()
    z = torch.empty_like(x)
    tcopy = ms(lambda: z.copy_(x))
    cfgs = [orig(x.element_size()), TileConfig(64, 64, 8), TileConfig(32, 32, 4), TileConfig(64, 64, 2)]
    for cfg in cfgs:
        TR.square_tiles = lambda itemsize, cfg=cfg: cfg
        for per_sm in (0, 2, 3, 4, 6, 8, 12, 16):
            TR.SQUARE_PROGRAMS_PER_SM = per_sm
            LAUNCH.PLANS.clear()
            y = x.clone()
            exact = bool(torch.equal(dl.transpose_(y), x.T))
            y = x.clone()
            t = ms(lambda: dl.transpose_(y))
            r = dict(n=n, dtype=str(dt), cfg=list(cfg), per_sm=per_sm, exact=exact, ms=t,
                     pct=nbytes / t / 1e6 / copy * 100, copy_same_pct=nbytes / tcopy / 1e6 / copy * 100)
            rows.append(r)
            with open(OUT, "a") as f:
                f.write(json.dumps(r) + "\n")
    TR.square_tiles = orig
    TR.SQUARE_PROGRAMS_PER_SM = 0
print("n dtype cfg per_sm pct (copy of same bytes)")
for n, dt in shapes:
    rs = [r for r in rows if r["n"] == n and r["dtype"] == str(dt)]
    base = [r for r in rs if r["per_sm"] == 0][0]
    best = max(rs, key=lambda r: r["pct"])
    bad = [r for r in rs if not r["exact"]]
    print(n, str(dt)[6:], "current", base["cfg"], f"{base['pct']:.1f}", "best", best["cfg"], best["per_sm"], f"{best['pct']:.1f}",
          f"copy {base['copy_same_pct']:.1f}", "NOT EXACT %d" % len(bad) if bad else "")
    for cfg in {tuple(r["cfg"]) for r in rs}:
        print("   ", cfg, " ".join(f"{r['per_sm']}:{r['pct']:.1f}" for r in rs if tuple(r["cfg"]) == cfg))
