"""int8 thin transposes read along their long side (item by item): every tile configuration, each recorded."""
import importlib.util
import torch
import densela as dl
spec = importlib.util.spec_from_file_location("mx", "scripts/memory-explore.py")
mx = importlib.util.module_from_spec(spec); spec.loader.exec_module(mx)
copy = mx.copy_gbs()
cfgs = mx.CONFIGS + mx.THIN_CONFIGS + [mx.TileConfig(*c) for c in [(128, 64, 4), (128, 32, 8), (64, 128, 8), (32, 128, 8), (128, 128, 4), (16, 128, 4), (128, 16, 4)]]
for shape, layout in [((700000, 100), "col"), ((100, 700000), "row"), ((400000, 100), "col"), ((100, 400000), "row")]:
    x = mx.laid_out(shape, torch.int8, layout)
    nbytes = 2 * x.numel()
    for cfg in dict.fromkeys(cfgs):
        t, best, exact = mx.best_tiles(x, [cfg], False)
        mx.record(group="int8b", shape=list(shape), layout=layout, cfg=list(cfg), exact=exact, pct=nbytes / t / 1e6 / copy * 100)
