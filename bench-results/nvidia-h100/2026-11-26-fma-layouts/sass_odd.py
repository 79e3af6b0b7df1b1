import re, subprocess, sys, tempfile, os, collections
import triton, triton.language as tl
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
from densela.kernels.gemm import HINTED, gemm_tiles_kernel
BIN = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
def sass(k):
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(k.asm["cubin"])
    return subprocess.run([f"{BIN}/nvdisasm", "-c", f.name], capture_output=True, text=True).stdout
def build(kernel, constants, ones, div16, num_warps, num_stages):
    sig, attrs = {}, {}
    for i, name in enumerate(kernel.arg_names):
        if name in constants: sig[name] = "constexpr"; continue
        if name in ones: sig[name] = "constexpr"; constants = dict(constants, **{name: 1}); continue
        if name.endswith("_ptr"): sig[name] = "*fp32"; attrs[(i,)] = [["tt.divisibility", 16]]
        elif name in ("alpha", "beta"): sig[name] = "fp64"
        else:
            sig[name] = "i32"
            if name in div16: attrs[(i,)] = [["tt.divisibility", 16]]
    return triton.compile(ASTSource(kernel, sig, constants, attrs), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": num_warps, "num_stages": num_stages})
for aligned in (False, True):
    for bm, bn, bk, w, st in [(64, 64, 32, 4, 3), (64,128,16,4,4), (128,128,32,8,3)]:
        div = ("stride_am", "stride_bk", "stride_om", "N", "LOAD_N", "K", "M", "stride_ab", "stride_bb", "stride_ob", "stride_cb") if aligned else ("stride_ab", "stride_bb", "stride_ob", "stride_cb")
        c = dict(HAS_C=False, SPLIT=False, SUM_CHUNK=1, PRECISION="ieee", ACC_DTYPE=tl.float32, UPCAST=False,
                 INDEX_64=False, HINTS=(1,)*len(HINTED), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
        k = build(gemm_tiles_kernel, c, ("stride_ak", "stride_bn", "stride_on"), div, w, st)
        s = sass(k)
        ops = collections.Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", s, re.M))
        g = lambda p: sum(v for kk, v in ops.items() if kk.startswith(p))
        print(aligned, bm, bn, bk, w, st, "total", sum(ops.values()), "FFMA", g("FFMA"), {kk:v for kk,v in ops.items() if kk.startswith(("LDS","LDG","STS"))}, k.metadata.shared)
print(collections.Counter(re.findall(r"cp\.async\.\S+", k.asm["ptx"])))
print(collections.Counter(re.findall(r"LDGSTS\S*", s)))
print(set(re.findall(r"cp\.async\.ca\.shared\.global[^\n]*", k.asm["ptx"])) and list(set(re.findall(r"cp\.async\.ca\.shared\.global[^\n]*", k.asm["ptx"])))[:3])
ttg = k.asm["ttgir"]
print("\n".join(l for l in ttg.splitlines() if "#shared" in l and "=" in l[:20] or "swizzled_shared" in l[:80])[:3000])
print(set(re.findall(r"ttg.async_copy_global_to_local[^\n]*", ttg)))
print("\n".join(l for l in ttg.splitlines() if l.startswith("#")))
