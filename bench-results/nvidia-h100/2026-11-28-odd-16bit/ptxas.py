import sys, os, subprocess, tempfile
sys.path.insert(0, sys.argv[1] if len(sys.argv) > 1 else "src")
import torch, triton
import densela.kernels.gemm_ws as W
from densela.tuning import GemmConfig
orig = subprocess.run
def run(cmd, **kw):
    r = orig(cmd, **kw)
    if "ptxas" in cmd[0] and kw.get("capture_output"):
        print(r.stderr[-3000:])
        import shutil; shutil.copy(cmd[3], "/tmp/k.ptx")
    return r
W.subprocess.run = run
cfg = GemmConfig(128, 256, 32, 8, 4, 3, "ws", epilogue_split=2)
print(W.compile_sm90(torch.float32, cfg, False, True, False, out_t=True))
