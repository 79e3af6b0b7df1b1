"""Probe (session 44): an out-of-place transpose through TMA (tensor descriptors), against densela's transpose and
torch's copy of the same bytes; GPU time by do_bench (L2 flushed), medians. Prints % of the measured 2 GiB copy."""
import itertools, json, os, sys
import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

INTERPRET = os.environ.get("TRITON_INTERPRET") == "1"
DEV = "cpu" if INTERPRET else "cuda"


@triton.jit
def tma_transpose(a_desc, o_desc, M, N, BM: tl.constexpr, BN: tl.constexpr, GROUP: tl.constexpr):
    pid = tl.program_id(0)
    tiles_m = tl.cdiv(M, BM)
    tiles_n = tl.cdiv(N, BN)
    # groups of GROUP tile rows walked column by column: reads and writes both stay within a band
    width = GROUP * tiles_n
    group = pid // width
    first = group * GROUP
    rows = tl.minimum(tiles_m - first, GROUP)
    tm = first + (pid % width) % rows
    tn = (pid % width) // rows
    x = a_desc.load([tm * BM, tn * BN])
    o_desc.store([tn * BN, tm * BM], tl.trans(x))


@triton.jit
def tma_transpose_persistent(a_desc, o_desc, M, N, BM: tl.constexpr, BN: tl.constexpr, STAGES: tl.constexpr):
    tiles_n = tl.cdiv(N, BN)
    tiles = tl.cdiv(M, BM) * tiles_n
    for t in tl.range(tl.program_id(0), tiles, tl.num_programs(0), num_stages=STAGES):
        tm = t // tiles_n
        tn = t % tiles_n
        x = a_desc.load([tm * BM, tn * BN])
        o_desc.store([tn * BN, tm * BM], tl.trans(x))


def launch(a, out, BM, BN, warps, mode, sms):
    M, N = a.shape
    ad = TensorDescriptor.from_tensor(a, [BM, BN])
    od = TensorDescriptor.from_tensor(out, [BN, BM])
    tiles = triton.cdiv(M, BM) * triton.cdiv(N, BN)
    if mode[0] == "g":
        tma_transpose[(tiles,)](ad, od, M, N, BM, BN, mode[1], num_warps=warps)
    else:
        tma_transpose_persistent[(min(tiles, sms * mode[2]),)](ad, od, M, N, BM, BN, mode[1], num_warps=warps)


def check():
    for (M, N), dt in itertools.product([(72, 104), (40, 64), (128, 24)], [torch.float32, torch.float64, torch.bfloat16]):
        a = torch.randn(M, N).to(dt)
        for BM, BN in [(32, 32), (64, 16)]:
            for mode in [("g", 4), ("p", 2, 1)]:
                out = torch.full((N, M), float("nan")).to(dt)
                launch(a, out, BM, BN, 4, mode, 4)
                assert torch.equal(out, a.t()), (M, N, dt, BM, BN, mode)
    print("interpreter check passed")


def main():
    from triton.testing import do_bench
    import densela as dl
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    big = torch.empty(1 << 30, dtype=torch.uint8, device=DEV)
    big2 = torch.empty_like(big)
    copy_gbps = 2 * big.numel() / (do_bench(lambda: big2.copy_(big), warmup=25, rep=200) * 1e-3) / 1e9
    del big, big2
    print(f"copy ceiling {copy_gbps:.0f} GB/s", flush=True)
    shapes = [((5000, 5000), torch.float32), ((10000, 10000), torch.float32), ((4096, 4096), torch.float32),
              ((2500, 5000), torch.float64), ((100000, 100), torch.float64), ((100, 100000), torch.float64),
              ((8192, 4096), torch.bfloat16), ((100000, 100), torch.float32)]
    only = sys.argv[1:] and [int(x) for x in sys.argv[1].split(",")]
    for i, (shape, dt) in enumerate(shapes):
        if only and i not in only:
            continue
        a = torch.randn(shape, device=DEV).to(dt)
        out = torch.empty(shape[::-1], device=DEV, dtype=dt)
        nbytes = 2 * a.numel() * a.element_size()
        pct = lambda ms: 100 * nbytes / (ms * 1e-3) / 1e9 / copy_gbps
        res = {}
        flat = torch.empty_like(a)
        res["torch-copy"] = do_bench(lambda: flat.copy_(a), warmup=25, rep=150)
        res["densela"] = do_bench(lambda: dl.transpose(a, out=out), warmup=25, rep=150)
        ref = a.t().contiguous()
        tiles = [(64, 64), (128, 64), (64, 128), (128, 128), (32, 128), (128, 32)]
        for (BM, BN), warps, mode in itertools.product(tiles, [4, 8], [("g", 1), ("g", 8), ("p", 3, 2), ("p", 4, 1)]):
            if BM > shape[0] * 2 or BN > shape[1] * 2:
                continue
            name = f"tma {BM}x{BN} w{warps} {mode}"
            try:
                out.fill_(float("nan"))
                launch(a, out, BM, BN, warps, mode, sms)
                if not torch.equal(out, ref):
                    print(name, "WRONG", flush=True)
                    continue
                res[name] = do_bench(lambda: launch(a, out, BM, BN, warps, mode, sms), warmup=25, rep=150)
            except Exception as e:  # noqa: BLE001
                print(name, "failed:", str(e).splitlines()[0][:120], flush=True)
        best = sorted(res.items(), key=lambda kv: kv[1])
        line = " | ".join(f"{k} {v*1e3:.1f}us {pct(v):.1f}%" for k, v in best[:6])
        print(f"{shape} {str(dt)[6:]}: torch-copy {pct(res['torch-copy']):.1f}% densela {pct(res['densela']):.1f}% || {line}", flush=True)
        with open(os.path.join(os.environ.get("OUT", "."), "tmaprobe.jsonl"), "a") as f:
            f.write(json.dumps(dict(shape=shape, dtype=str(dt), copy_gbps=copy_gbps, ms=res, gpu=torch.cuda.get_device_name())) + "\n")


if __name__ == "__main__":
    check() if INTERPRET else main()
