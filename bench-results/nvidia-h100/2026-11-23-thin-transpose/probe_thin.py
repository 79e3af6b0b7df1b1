"""Thin transposes at de90e0b: the binary-digit spans on and off (THIN_LONG), hints on and off (HINTS forced to 1)."""
import importlib

import torch
import triton.testing

import densela as dl

TR = importlib.import_module("densela.transpose")
x = torch.empty(256 * 2**20 // 4, device="cuda")
y = torch.empty_like(x)
copy = 2 * x.numel() * 4 / triton.testing.do_bench(lambda: y.copy_(x), warmup=5, rep=60) / 1e6
print(f"copy {copy:.0f} GB/s")
real_hint = TR.multiple_hint
for spans in (True, False):
    for hints in (True, False):
        TR.THIN_LONG = 1024 if spans else 1 << 60
        TR.multiple_hint = real_hint if hints else (lambda v, most: 1)
        for shape, dtype in (((100000, 100), torch.float32), ((100, 100000), torch.float32), ((100000, 100), torch.float64),
                             ((100000, 100), torch.bfloat16), ((5000, 5000), torch.float32)):
            for layout in ("row", "col"):
                a = torch.randn(shape if layout == "row" else shape[::-1], device="cuda").to(dtype)
                a = a if layout == "row" else a.T
                assert torch.equal(dl.transpose(a), a.T)
                ms = triton.testing.do_bench(lambda: dl.transpose(a), warmup=5, rep=60)
                pct = 2 * a.numel() * a.element_size() / ms / 1e6 / copy * 100
                print(f"spans={spans:d} hints={hints:d} {shape} {str(dtype)[6:]:8} {layout}: {pct:5.1f}%", flush=True)
