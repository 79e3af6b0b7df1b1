"""int8 transposes of 64 MiB and more: current path and the best tiles, packed and item by item (memory-explore's
best_tiles), against torch; bit-exactness checked."""
import importlib.util
import torch
import densela as dl
spec = importlib.util.spec_from_file_location("mx", "scripts/memory-explore.py")
mx = importlib.util.module_from_spec(spec); spec.loader.exec_module(mx)
copy = mx.copy_gbs()
for shape in [(700000, 100), (100, 700000), (65536, 1024), (8192, 8192)]:
    for layout in ("row", "col"):
        x = mx.laid_out(shape, torch.int8, layout)
        nbytes = 2 * x.numel()
        t_torch = mx.ms(lambda: x.t().contiguous())
        t_now = mx.ms(lambda: dl.transpose(x))
        for packed in (False, True):
            t, cfg, exact = mx.best_tiles(x, mx.CONFIGS + mx.THIN_CONFIGS, packed)
            mx.record(group="int8", shape=list(shape), layout=layout, packed=packed, exact=exact,
                      current_pct=nbytes / t_now / 1e6 / copy * 100, best_pct=nbytes / t / 1e6 / copy * 100, best=cfg,
                      vs_torch=t_torch / t, torch_pct=nbytes / t_torch / 1e6 / copy * 100)
