"""Probe (session 63): does the lab's order (cuBLAS timed first, densela right after) bias the ratio? For each product,
six rounds alternating which provider is timed first (time_gpu with the lab's --max-seconds 1), one rep each.
JSON lines to $OUT/probe-order.jsonl."""
import functools, json, os
import torch
import densela as dl
from densela.bench.timing import time_gpu

rows = []
for dtype, precision in ((torch.bfloat16, None), (torch.float16, None), (torch.float32, "tf32"), (torch.float32, "ieee")):
    torch.manual_seed(0)
    a = torch.randn(4096, 4096, device="cuda").to(dtype)
    b = torch.randn(4096, 4096, device="cuda").to(dtype)
    out = torch.empty(4096, 4096, device="cuda", dtype=dtype)
    torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
    calls = {"cublas": functools.partial(torch.matmul, a, b, out=out),
             "densela": functools.partial(dl.matmul, a, b, out=out, precision=precision)}
    for r in range(6):
        order = ("cublas", "densela") if r % 2 == 0 else ("densela", "cublas")
        t = {p: time_gpu(calls[p], max_seconds=1.0).median_ms * 1e3 for p in order}
        row = {"dtype": str(dtype)[6:], "precision": precision, "first": order[0], **t, "ratio": t["cublas"] / t["densela"]}
        rows.append(row)
        print(f"{row['dtype']:9s} {str(precision):5s} first {order[0]:8s} cublas {t['cublas']:8.1f} densela {t['densela']:8.1f} ratio {row['ratio']:.3f}", flush=True)
torch.backends.cuda.matmul.allow_tf32 = False
with open(os.path.join(os.environ.get("OUT", "."), "probe-order.jsonl"), "w") as fh:
    for r in rows:
        fh.write(json.dumps(r) + "\n")
