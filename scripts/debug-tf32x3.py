"""Localizes the 3xTF32 error on a GPU: the split against a torch emulation, then the kernel on known parts.

python3 scripts/debug-tf32x3.py
"""

import importlib

import torch

from densela.tuning import GemmConfig

G = importlib.import_module("densela.gemm")


def split_reference(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """hi = x rounded to TF32 (ties to even), lo = (x - hi) rounded to TF32: in int64 arithmetic."""

    def rnd(v: torch.Tensor) -> torch.Tensor:
        bits = v.view(torch.int32).to(torch.int64) & 0xFFFFFFFF
        r = (bits + 0xFFF + ((bits >> 13) & 1)) & 0xFFFFE000
        return (r.to(torch.int64) - ((r >> 31) << 32)).to(torch.int32).view(torch.float32)

    hi = rnd(x)
    return hi, rnd(x - hi)


def rel(x: torch.Tensor, ref: torch.Tensor) -> float:
    return float((x.double() - ref).norm() / ref.norm())


def main() -> None:
    torch.manual_seed(0)
    n = 2048
    a = torch.randn(n, n, device="cuda")
    b = torch.randn(n, n, device="cuda")
    ref = a.double() @ b.double()
    a_hi, a_lo = G._aligned_copy(a, split=True)
    b_hi, b_lo = G._aligned_copy(b.T, split=True)  # n x k, K-major
    ra_hi, ra_lo = split_reference(a)
    rb_hi, rb_lo = split_reference(b.T.contiguous())
    print("split a: hi equal", torch.equal(a_hi, ra_hi), "lo equal", torch.equal(a_lo, ra_lo))
    print("split b: hi equal", torch.equal(b_hi, rb_hi), "lo equal", torch.equal(b_lo, rb_lo))
    print("hi + lo vs x (a):", rel(a_hi.double() + a_lo.double(), a.double()))
    ideal = a_hi.double() @ b_hi.double().T + a_lo.double() @ b_hi.double().T + a_hi.double() @ b_lo.double().T
    print("ideal 3-term vs exact:", rel(ideal, ref))
    for cfg in (GemmConfig(128, 128, 32, 8, 8, 3, "tma", epilogue_split=2),
                GemmConfig(128, 128, 32, 8, 8, 3, "tma", flatten=False, epilogue_split=2),
                GemmConfig(128, 128, 32, 8, 4, 2, "tma"), GemmConfig(64, 64, 32, 8, 4, 2)):  # fmt: skip
        out = torch.empty(n, n, device="cuda")
        G.launch_gemm(a, b, None, out, 1.0, 0.0, "tf32x3", cfg)
        print(cfg.kernel, cfg.block_m, cfg.block_n, cfg.num_warps, cfg.num_stages, cfg.flatten,
              "tf32x3 vs exact", rel(out, ref), "vs ideal", rel(out, ideal))  # fmt: skip
    # single TF32 products of exact TF32 parts: each should match float64 to float32 accumulation
    for name, x, y in (("hi@hi", a_hi, b_hi), ("lo@hi", a_lo, b_hi), ("hi@lo", a_hi, b_lo)):
        out = torch.empty(n, n, device="cuda")
        G.launch_gemm(x, y.T, None, out, 1.0, 0.0, "tf32", GemmConfig(128, 128, 32, 8, 8, 3, "tma", epilogue_split=2))
        exact = x.double() @ y.double().T
        print(name, "TF32 TMA product of TF32 values vs float64:", rel(out, exact))
        out2 = torch.empty(n, n, device="cuda")
        G.launch_gemm(x, y.T, None, out2, 1.0, 0.0, "ieee", GemmConfig(64, 64, 32, 8, 4, 2))
        print(name, "FMA product vs float64:", rel(out2, exact))


if __name__ == "__main__":
    main()
