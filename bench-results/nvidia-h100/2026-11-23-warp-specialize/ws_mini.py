import triton, triton.language as tl, torch
from triton.tools.tensor_descriptor import TensorDescriptor

@triton.jit
def k_ws(a_desc, b_desc, out_ptr, M, N, K, stride_om,
         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr, NUM_SMS: tl.constexpr,
         WS: tl.constexpr, PERSISTENT: tl.constexpr):
    num_m = tl.cdiv(M, BLOCK_M); num_n = tl.cdiv(N, BLOCK_N); k_tiles = tl.cdiv(K, BLOCK_K)
    if PERSISTENT:
        start = tl.program_id(0); step = NUM_SMS
    else:
        start = tl.program_id(0); step = num_m * num_n
    for tile in tl.range(start, num_m * num_n, step, flatten=False):
        group = 8 * num_n
        gid = tile // group
        first_m = gid * 8
        gsz = min(num_m - first_m, 8)
        pid_m = first_m + (tile % group) % gsz
        pid_n = (tile % group) // gsz
        row0 = pid_m * BLOCK_M; col0 = pid_n * BLOCK_N
        acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
        for kk in tl.range(k_tiles, warp_specialize=WS):
            a = a_desc.load([row0, kk * BLOCK_K])
            b = b_desc.load([kk * BLOCK_K, col0])
            acc = tl.dot(a, b, acc)
        offs_m = row0 + tl.arange(0, BLOCK_M); offs_n = col0 + tl.arange(0, BLOCK_N)
        tl.store(out_ptr + offs_m[:, None] * stride_om + offs_n[None, :], acc.to(out_ptr.dtype.element_ty),
                 mask=(offs_m[:, None] < M) & (offs_n[None, :] < N))

def run(a, b, out, spec):
    bm, bn, bk = spec.get("tile", (128, 256, 64))
    M, K = a.shape; N = b.shape[1]
    ad = TensorDescriptor(a, [M, K], [a.stride(0), 1], [bm, bk])
    bd = TensorDescriptor(b, [K, N], [b.stride(0), 1], [bk, bn])
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    tiles = triton.cdiv(M, bm) * triton.cdiv(N, bn)
    pers = spec.get("persistent", True)
    grid = (min(sms, tiles),) if pers else (tiles,)
    k_ws[grid](ad, bd, out, M, N, K, out.stride(0), bm, bn, bk, sms, spec.get("ws", True), pers,
               num_warps=spec.get("warps", 4), num_stages=spec.get("stages", 3))
