import sys, re, collections, importlib, subprocess, tempfile, os
import triton, triton.language as tl
from triton.compiler import ASTSource
from triton.backends.compiler import GPUTarget
BIN = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
sys.path.insert(0, ".br")
from body import body
def sass(k):
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(k.asm["cubin"])
    return subprocess.run([f"{BIN}/nvdisasm", "-c", f.name], capture_output=True, text=True).stdout
def build(kernel, constants, ones, div16, num_warps, num_stages, ptr):
    sig, attrs = {}, {}
    constants = dict(constants)
    for i, name in enumerate(kernel.arg_names):
        if name in constants: sig[name] = "constexpr"; continue
        if name in ones: sig[name] = "constexpr"; constants[name] = 1; continue
        if name.endswith("_ptr"):
            sig[name] = ptr if name in ("a_ptr", "b_ptr", "c_ptr", "out_ptr") else "*fp32"; attrs[(i,)] = [["tt.divisibility", 16]]
        elif name in ("alpha", "beta"): sig[name] = "fp64"
        else:
            sig[name] = "i32"
            if name in div16: attrs[(i,)] = [["tt.divisibility", 16]]
    return triton.compile(ASTSource(kernel, sig, constants, attrs), target=GPUTarget("cuda", 90, 32),
                          options={"num_warps": num_warps, "num_stages": num_stages})
def kern(src):
    sys.path.insert(0, src)
    for m in [m for m in sys.modules if m.startswith("densela")]: del sys.modules[m]
    mod = importlib.import_module("densela.kernels.gemm")
    sys.path.pop(0)
    return mod.gemm_tiles_kernel, mod.HINTED
(old, H), (new, _) = kern(".old/src"), kern("src")
cases = [("*fp32", tl.float32, "ieee", 64, 64, 32, 4, 3), ("*fp32", tl.float32, "ieee", 64, 128, 16, 4, 4), ("*fp32", tl.float32, "tf32", 128, 128, 32, 8, 3),
         ("*bf16", tl.float32, "ieee", 128, 128, 64, 8, 3), ("*fp64", tl.float64, "ieee", 64, 64, 32, 4, 3), ("*fp64", tl.float64, "ieee", 64, 128, 16, 4, 3)]
for ptr, acc, prec, bm, bn, bk, w, st in (cases if os.environ.get("ALL") else []):
    for al in (0, 1):
        div = ("stride_am", "stride_bk", "stride_om", "N", "LOAD_N", "K", "M", "stride_ab", "stride_bb", "stride_ob", "stride_cb") if al else ("stride_ab", "stride_bb", "stride_ob", "stride_cb")
        res = []
        for k, extra in ((old, {}), (new, dict(CLAMP_M=True, CLAMP_N=not al))):
            c = dict(HAS_C=False, SPLIT=False, SUM_CHUNK=1, PRECISION=prec, ACC_DTYPE=acc, UPCAST=False,
                     INDEX_64=False, HINTS=(1,)*len(H), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, **extra)
            b = body(sass(build(k, c, ("stride_ak", "stride_bn", "stride_on"), div, w, st, ptr)))
            res.append([x[0] for x in b])
        print(ptr, prec, bm, bn, bk, "aligned" if al else "odd", "old", res[0], "new", res[1], flush=True)

def res(k):
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(k.asm["cubin"])
    o = subprocess.run([f"{BIN}/cuobjdump", "--dump-resource-usage", f.name], capture_output=True, text=True).stdout
    return re.findall(r"REG:(\d+) STACK:(\d+)", o)
print("registers")
for ptr, acc, prec, bm, bn, bk, w, st in [("*fp64", tl.float64, "ieee", 64, 64, 32, 4, 3), ("*fp32", tl.float32, "ieee", 64, 64, 32, 4, 3), ("*fp64", tl.float64, "ieee", 32, 32, 64, 4, 3)]:
    for al in (0, 1):
        div = ("stride_am", "stride_bk", "stride_om", "N", "LOAD_N", "K", "M", "stride_ab", "stride_bb", "stride_ob", "stride_cb") if al else ("stride_ab", "stride_bb", "stride_ob", "stride_cb")
        out = []
        for k, extra in ((old, {}), (new, dict(CLAMP_M=True, CLAMP_N=False))):
            c = dict(HAS_C=False, SPLIT=False, SUM_CHUNK=1, PRECISION=prec, ACC_DTYPE=acc, UPCAST=False,
                     INDEX_64=False, HINTS=(1,)*len(H), BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8, **extra)
            kk = build(k, c, ("stride_ak", "stride_bn", "stride_on"), div, w, st, ptr)
            out.append((res(kk), [x[0] for x in body(sass(kk))]))
        print(ptr, bm, bn, bk, al, out, flush=True)
