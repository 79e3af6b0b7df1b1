import sys, time
sys.path.insert(0, sys.argv[1])
import torch
import densela.kernels.gemm_ws as W; W.WS_MAXNREG = int(sys.argv[2]) if len(sys.argv) > 2 else 168; compile_sm90 = W.compile_sm90
from densela.tuning import GemmConfig
for cfg in [GemmConfig(128, 256, 32, 16, 4, 4, "ws", epilogue_split=4), GemmConfig(128, 128, 32, 8, 4, 4, "ws", epilogue_split=2),
            GemmConfig(128, 256, 16, 8, 4, 6, "ws", epilogue_split=4), GemmConfig(128, 192, 32, 8, 4, 4, "ws", epilogue_split=2)]:
    try:
        print(cfg.describe(), compile_sm90(torch.float32, cfg, False, True, False, out_t=True))
    except Exception as e:
        print(cfg.describe(), "ERR", str(e)[-200:])
