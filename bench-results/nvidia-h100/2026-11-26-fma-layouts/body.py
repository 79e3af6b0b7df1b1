import sys, re, collections
sys.path.insert(0, ".br")
exec(open(".br/sass_odd.py").read().split("for aligned in")[0])
def body(s):
    blocks = re.split(r"\n(?=\.L_x_\d+:)", s)
    out = []
    for b in blocks:
        name = re.match(r"(\.L_x_\d+):", b)
        if not name: continue
        if re.search(r"BRA\W+`?\(?" + re.escape(name.group(1)) + r"\)", b):
            ops = collections.Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", b, re.M))
            if ops["FFMA"] or ops["HGMMA.64x64x16.F32.BF16"] or sum(ops.values()) > 50:
                out.append((sum(ops.values()), ops["FFMA"], {k: v for k, v in ops.most_common(10) if k != "FFMA"}))
    return out
def tiles(al, clamp_m, clamp_n, bm=64, bn=64, bk=32, w=4, st=3, split=False):
    div = ("stride_am", "stride_bk", "stride_om", "N", "LOAD_N", "K", "M", "stride_ab", "stride_bb", "stride_ob", "stride_cb") if al else ("stride_ab", "stride_bb", "stride_ob", "stride_cb")
    c = dict(HAS_C=False, SPLIT=split, SUM_CHUNK=4 if split else 1, PRECISION="ieee", ACC_DTYPE=tl.float32, UPCAST=False,
             INDEX_64=False, HINTS=(1,)*len(HINTED), CLAMP_M=clamp_m, CLAMP_N=clamp_n, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8)
    return build(gemm_tiles_kernel, c, ("stride_ak", "stride_bn", "stride_on"), div, w, st)
if __name__ == "__main__":
    for al, cm, cn in [(0, 0, 0), (0, 1, 1), (0, 1, 0), (0, 0, 1), (1, 0, 0), (1, 1, 0)]:
        print("aligned" if al else "odd", cm, cn, body(sass(tiles(al, cm, cn))))
