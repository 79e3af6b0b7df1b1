"""Compiles gemm_tiles_kernel for sm_90 (no GPU) as a float32 FMA product of n^3 with row-major operands would run
(the tables' 64 x 64 x 32, 3 stages, 4 warps), dumps its SASS and counts the K loop's instructions."""
import os, re, subprocess, sys, tempfile
sys.path.insert(0, sys.argv[1])
os.environ.pop("TRITON_INTERPRET", None)
import torch, triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
import densela.kernels.gemm as G
from densela._launch import multiple_hint

n = int(sys.argv[2]) if len(sys.argv) > 2 else 1015
bm, bn, bk, warps, stages = [int(x) for x in (sys.argv[4].split(",") if len(sys.argv) > 4 else (64, 64, 32, 4, 3))]
fn = G.gemm_tiles_kernel
ints = (n, n, n, n, 0, n, 1, 0, n, 1, 0, n, 1, 0, n, 1)  # M N K LOAD_N, a b c out (batch, row, col strides)
values = dict(zip(G.HINTED, ints))
const = dict(HAS_C=False, SPLIT=False, SUM_CHUNK=1, PRECISION="ieee", ACC_DTYPE=tl.float32, UPCAST=False,
             INDEX_64=False, HINTS=tuple(multiple_hint(x, 4) for x in ints), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk,
             GROUP_M=8)
signature, constexprs, attrs = {}, {}, {}
for i, name in enumerate(fn.arg_names):
    p = fn.params[i]
    if p.is_constexpr:
        signature[name] = "constexpr"; constexprs[(i,)] = const[name]
    elif name.endswith("_ptr"):
        signature[name] = "*i32" if name == "count_ptr" else "*fp32"; attrs[(i,)] = [["tt.divisibility", 16]]
    elif name in ("alpha", "beta"):
        signature[name] = "fp64"
    else:
        v = values[name]
        if v == 1:
            signature[name] = "constexpr"; constexprs[(i,)] = 1
        else:
            signature[name] = "i32"
            if v % 16 == 0:
                attrs[(i,)] = [["tt.divisibility", 16]]
src = ASTSource(fn, signature, constexprs, attrs)
k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": warps, "num_stages": stages})
bin_dir = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin")
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "k.cubin")
    open(path, "wb").write(k.asm["cubin"])
    sass = subprocess.run([os.path.join(bin_dir, "nvdisasm"), "-c", "-g", path], capture_output=True, text=True).stdout
out = sys.argv[3] if len(sys.argv) > 3 else f"/tmp/tiles-{n}.sass"
open(out, "w").write(sass)
lines = [l for l in sass.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", l)]
ops = [re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?", "", l).split(" ")[0].split(".")[0] for l in lines]
from collections import Counter
print(n, "instructions", len(ops), Counter(ops).most_common(14))
# the K loop: the instructions between a label and a branch back to it, the loop with the most FFMA
text = sass.splitlines()
labels = {}
for i, l in enumerate(text):
    m = re.match(r"^\.(L_x_\d+):", l.strip())
    if m:
        labels[m.group(1)] = i
best = None
for i, l in enumerate(text):
    m = re.search(r"BRA\s+`?\(?\.?(L_x_\d+)", l)
    if m and m.group(1) in labels and labels[m.group(1)] < i:
        body = [x for x in text[labels[m.group(1)]:i + 1] if re.search(r"/\*[0-9a-f]{4}\*/", x)]
        f = sum("FFMA" in x for x in body)
        if f >= 512:
            ops = [re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?U?P\w+\s+)?", "", l).split(" ")[0].split(".")[0] for l in body]
            print("loop", len(ops), Counter(ops).most_common(12))
print("shared", k.metadata.shared, "regs", k.n_regs if hasattr(k, "n_regs") else "")
