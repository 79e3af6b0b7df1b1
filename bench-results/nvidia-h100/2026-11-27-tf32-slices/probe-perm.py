"""Probe (session 61): permutation_kernel (one thread per row through every interchange) by block and unroll, GPU
time by kernel_times, against the interchange walk on an int32 column; the result checked against it."""
import torch
from densela import lu as L
from densela._launch import cdiv
from densela.bench.timing import kernel_times

for n in (4096, 8192, 16384):
    torch.manual_seed(0)
    a = torch.randn(n, n, device="cuda", dtype=torch.float64) if n <= 8192 else None
    piv = (L.lu_factor(a)[1] if a is not None else torch.maximum(torch.randint(0, n, (n,), device="cuda"), torch.arange(n, device="cuda"))).to(torch.int32)
    rows = torch.arange(n, dtype=torch.int32, device="cuda").reshape(1, n, 1)
    L._launch_interchanges(rows, piv.unsqueeze(0))
    walk = sum(kernel_times(lambda: L._launch_interchanges(torch.arange(n, dtype=torch.int32, device="cuda").reshape(1, n, 1), piv.unsqueeze(0)))["interchange_rows_kernel"])
    line = f"n={n}: walk(all kernels) {walk:6.1f} us |"
    for block, warps in ((32, 1), (64, 2), (128, 4), (256, 8)):
        for unroll in (8, 16, 32):
            perm = torch.empty(n, dtype=torch.int32, device="cuda")
            go = lambda: L._PERMUTATION((cdiv(n, block),), piv, perm, n, n, 1, BLOCK=block, UNROLL=unroll, num_warps=warps)
            go()
            assert torch.equal(perm, rows.reshape(n)), (block, unroll)
            k = kernel_times(go)
            line += f" {block}/{unroll} {sum(k['permutation_kernel']) if 'permutation_kernel' in k else sum(sum(v) for v in k.values()):.1f}"
    print(line, flush=True)
