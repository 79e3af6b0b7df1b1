"""float32 n = 8192 with look-ahead and the tiles kernel beside each panel (the test's old setting): are the factors
valid (LAPACK's ratio ||PA - LU||_1 / (n ||A||_1 eps)), and where do its pivots part from the plain path's?"""
import numpy as np, torch
import densela as dl, densela.lu as L
n = 8192
values = np.random.default_rng(n).standard_normal((n, n)).astype(np.float32)
values[:, n // 3] *= 1e-3
a = torch.from_numpy(values).cuda()
L.LOOKAHEAD_FROM = n + 1
lu0, piv0 = dl.lu_factor(a)
L.LOOKAHEAD_FROM = 1
L.AHEAD_UPDATE_TILES_FROM = {torch.float32: 1}
lu1, piv1 = dl.lu_factor(a)
def ratio(lu, piv):
    lu = lu.double(); l = torch.tril(lu, -1) + torch.eye(n, device="cuda", dtype=torch.float64); u = torch.triu(lu)
    p = torch.arange(n, device="cuda")
    pv = piv.long().tolist(); perm = list(range(n))
    for i, j in enumerate(pv):
        perm[i], perm[j] = perm[j], perm[i]
    pa = a.double()[torch.tensor(perm, device="cuda")]
    r = (pa - l @ u).abs().sum(0).max() / (n * a.double().abs().sum(0).max() * np.finfo(np.float32).eps)
    return float(r)
diff = (piv0 != piv1).nonzero()
print("first differing pivot", int(diff[0]) if len(diff) else None, "count", len(diff))
print("LAPACK ratio plain", ratio(lu0, piv0), "look-ahead with tiles beside", ratio(lu1, piv1))
if len(diff):
    k = int(diff[0])
    # the near tie: the two largest magnitudes in column k below the diagonal of the plain path's partially factored matrix
    print("pivot rows at", k, ":", int(piv0[k]), int(piv1[k]))
