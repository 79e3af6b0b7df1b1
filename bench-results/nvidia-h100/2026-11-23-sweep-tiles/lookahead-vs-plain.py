"""Look-ahead vs plain LU on the GPU: first differing pivot, factor difference before it, candidate gap there."""
import numpy as np
import torch

import densela as dl
import densela.lu as L

for n, dt in [(4097, np.float64), (1000, np.float64), (4097, np.float32), (1000, np.float32)]:
    v = np.random.default_rng(n).standard_normal((n, n)).astype(dt)
    v[:, n // 3] *= 1e-3
    a = torch.from_numpy(v).cuda()
    runs = []
    for la in (False, True, True, False):
        L.LOOKAHEAD = la
        lu, piv = dl.lu_factor(a)
        torch.cuda.synchronize()
        runs.append((lu.double().cpu().numpy(), piv.cpu().numpy().astype(np.int64)))
    (l0, p0), (l1, p1), (l2, p2), (l3, p3) = runs
    ref = torch.linalg.lu_factor(torch.from_numpy(v.astype(np.float64)))[1].numpy() - 1
    def first(x, y):
        d = np.nonzero(x != y)[0]
        return int(d[0]) if len(d) else None
    j = first(p0, p1)
    upto = n if j is None else j
    scale = np.abs(l0).max()
    print(f"n={n} {dt.__name__}: plain/ahead first pivot diff {j}; plain/plain {first(p0, p3)}; ahead/ahead {first(p1, p2)};"
          f" plain vs fp64 LAPACK {first(p0, ref)}; ahead vs LAPACK {first(p1, ref)}", flush=True)
    print(f"   max |plain - ahead| in columns < {upto}: {np.abs(l0[:, :upto] - l1[:, :upto]).max() / scale:.3e} (rel. to max),"
          f" ahead run-to-run {np.abs(l1 - l2).max() / scale:.3e}, plain run-to-run {np.abs(l0 - l3).max() / scale:.3e}",
          flush=True)
    if j is not None:
        w = v.astype(np.float64).copy()
        for i in range(j):
            w[[i, p0[i]]] = w[[p0[i], i]]
        col = w[j:, j] - l0[j:, :j] @ l0[:j, j] if j else w[j:, j]
        order = np.argsort(-np.abs(col))
        c1, c2 = np.abs(col[order[0]]), np.abs(col[order[1]])
        print(f"   column {j} candidates: top {c1:.6e} (row {order[0] + j}), next {c2:.6e} (row {order[1] + j}),"
              f" relative gap {(c1 - c2) / c1:.3e}; plain chose {p0[j]}, ahead chose {p1[j]}", flush=True)
