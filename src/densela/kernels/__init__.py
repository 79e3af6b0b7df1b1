"""Triton kernels, one module per family; @triton.jit functions only."""
