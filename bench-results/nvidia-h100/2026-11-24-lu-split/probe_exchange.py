"""Variants of lu_warp_kernel's cross-warp pivot-row exchange, GPU time of lu_factor_ex on batches (2026-11-24).

A: as committed (plain loads of the scratch row after the barrier); B: loads at L2 (.cg); C: no exchange (each
thread's own row taken as the pivot row: wrong factors, the exchange's cost bounded); U: A without the register
cap of lu._warp_registers (if the tree has one); torch's best path beside.
"""
import importlib.util, json, os, sys, tempfile, time
from pathlib import Path
import torch
from triton.testing import do_bench
import densela as dl
import densela.lu as lu_module
import densela.kernels.lu_warp as lw
from densela._launch import Launcher

OUT = os.environ.get("OUT", ".")
src = Path(lw.__file__).read_text()
load = "                prow = gl.load(slot)\n"
assert load in src
variants = {
    "A": src,
    "B": src.replace(load, '                prow = gl.load(slot, cache_modifier=".cg")\n'),
    "C": src.replace("                gl.store(slot, blk, mask=(row == holder[:, None])[:, :, None, None] & (c4 < COLS))\n", "")
            .replace("                gl.thread_barrier()\n", "").replace(load, "                prow = blk\n"),
}
variants = {k: v for k, v in variants.items() if k in os.environ.get("VARIANTS", "A,B,C").split(",")}
tmp = tempfile.mkdtemp()
kernels = {}
for name, text in variants.items():
    path = os.path.join(tmp, f"lw_{name}.py")
    Path(path).write_text(text)
    spec = importlib.util.spec_from_file_location(f"lw_{name}", path)
    mod = importlib.util.module_from_spec(spec); spec.loader.exec_module(mod)
    kernels[name] = Launcher(mod.lu_warp_kernel)

def gpu_ms(fn):
    fn(); torch.cuda.synchronize()
    return do_bench(fn, warmup=10, rep=300, return_mode="median")

shapes = [(int(x) for x in s.split("x")) for s in (sys.argv[1:] or ["10000x64x64"])]
for count, m, n in shapes:
    for dtype in (torch.float64, torch.float32):
        if not lu_module._warp_lanes(m, n, torch.tensor([], dtype=dtype).element_size()):
            print(f"{count}x{m}x{n} {dtype}: not taken"); continue
        a = torch.randn(count, m, n, dtype=dtype, device="cuda")
        torch.backends.cuda.preferred_linalg_library("cusolver"); cus = gpu_ms(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("magma"); mag = gpu_ms(lambda: torch.linalg.lu_factor_ex(a))
        torch.backends.cuda.preferred_linalg_library("default")
        ref_lu, ref_piv = torch.linalg.lu_factor(a[:100])
        row = dict(count=count, m=m, n=n, dtype=str(dtype), cusolver_ms=cus, magma_ms=mag)
        runs = dict(kernels)
        if "U" in os.environ.get("VARIANTS", "") and hasattr(lu_module, "_warp_registers"):
            runs["U"] = kernels["A"]
        capped = getattr(lu_module, "_warp_registers", None)
        for name, k in runs.items():
            lu_module._WARP = k
            if capped:
                lu_module._warp_registers = (lambda *args: 255) if name == "U" else capped
            lu, piv, _ = dl.lu_factor_ex(a)
            same = bool(torch.equal(piv[:100], (ref_piv - 1).to(torch.int32)))
            row[name] = gpu_ms(lambda: dl.lu_factor_ex(a)); row[name + "_pivots"] = same
        best = min(cus, mag)
        print(f"{count}x{m}x{n} {str(dtype)[6:]}: torch best {best:.3f} ms | " + " | ".join(
            f"{k} {row[k]:.3f} ({best / row[k]:.2f}x{'' if row[k + '_pivots'] else ', pivots differ'})" for k in runs), flush=True)
        with open(os.path.join(OUT, "probe-exchange.jsonl"), "a") as f:
            f.write(json.dumps(row) + "\n")
