"""The kernels compile for Hopper (sm_90) on any machine, GPU or not.

Triton's interpreter runs the kernels' Python, not their compilation: code that only the compiler sees
(a stride Triton specializes to the constant 1 becomes a Python int; 64-bit offsets) can pass every
interpreter test and still fail on the GPU. These tests compile such variants for an H100/H200 target
and check that the products use the instructions they should.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from triton.experimental.gluon._runtime import GluonASTSource

from densela._arrays import INTERPRET
from densela.kernels.elementwise import copy_rows_kernel
from densela.kernels.gemm import HINTED, gemm_tiles_kernel, gemm_tma_kernel
from densela.kernels.lu import (
    interchange_rows_kernel,
    lu_panel_kernel,
    matvec_kernel,
    nonfinite_flag_kernel,
    permute_solve_kernel,
    sweep_factors_kernel,
    sweep_solve_kernel,
)
from densela.kernels.lu_warp import lu_warp_kernel
from densela.kernels.transpose import (
    permute_chunks_kernel,
    restride_rows_kernel,
    shuffle_columns_kernel,
    shuffle_rows_kernel,
    transpose_tiles_kernel,
)

HOPPER = GPUTarget("cuda", 90, 32)
GLUON_KERNELS = (lu_warp_kernel,)


def compile_ptx(*args: Any, **kwargs: Any) -> str:
    """PTX of ``compile_hopper(*args, **kwargs)``."""
    return compile_hopper(*args, **kwargs).asm["ptx"]


def compile_hopper(
    kernel: Any,
    pointer: str,
    constants: dict[str, Any],
    ones: tuple[str, ...] = (),
    descriptors: dict[str, str] | None = None,
    num_warps: int = 4,
    pointers: dict[str, str] | None = None,
    sixteens: tuple[str, ...] = (),
) -> Any:
    """``kernel`` compiled for Hopper: pointers of type ``pointer`` unless ``pointers`` names another (16-byte
    aligned, as Triton specializes the pointers of aligned tensors), the ``ones`` arguments specialized to 1, the
    ``sixteens`` to multiples of 16 (as Triton specializes such integers), the other integers unspecialized, tensor
    descriptors typed by ``descriptors`` (name -> 'tensordesc<fp16[128,64]>')."""
    signature, constexprs = dict(descriptors or {}), dict(constants, **dict.fromkeys(ones, 1))
    attrs = {}
    for i, name in enumerate(kernel.arg_names):
        if name in signature:
            continue
        if name in constexprs:
            signature[name] = "constexpr"
        elif name.endswith("_ptr"):
            signature[name] = (pointers or {}).get(name, pointer)
            attrs[(i,)] = [["tt.divisibility", 16]]
        elif name in ("alpha", "beta"):
            signature[name] = "fp64"
        else:
            signature[name] = "i32"
            if name in sixteens:
                attrs[(i,)] = [["tt.divisibility", 16]]
    source = (GluonASTSource if kernel in GLUON_KERNELS else ASTSource)(kernel, signature, constexprs, attrs)
    return triton.compile(source, target=HOPPER, options={"num_warps": num_warps})


GEMM_CASES = [
    # (pointer type, accumulator, precision, instruction the product must use)
    pytest.param("*fp16", tl.float32, "ieee", "wgmma", id="float16"),
    pytest.param("*bf16", tl.float32, "ieee", "wgmma", id="bfloat16"),
    pytest.param("*fp32", tl.float32, "tf32", "wgmma", id="tf32"),
    pytest.param("*fp32", tl.float32, "tf32x3", "wgmma", id="tf32x3"),
    pytest.param("*fp32", tl.float32, "ieee", "fma.rn.f32", id="ieee"),
    pytest.param("*fp64", tl.float64, "ieee", "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64", id="float64"),
]


@pytest.mark.skipif(not INTERPRET, reason="the compile tests below run directly")
def test_compile_tests_pass_outside_the_interpreter():
    """Under TRITON_INTERPRET=1 the kernels are interpreted functions: compile them in a fresh process."""
    env = {**os.environ, "TRITON_INTERPRET": "0"}  # explicitly off: conftest turns it on where unset and no GPU
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__],
        cwd=Path(__file__).parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout


compiled = pytest.mark.skipif(INTERPRET, reason="kernels are interpreted functions under TRITON_INTERPRET=1")


@compiled
@pytest.mark.parametrize("index_64", [False, True], ids=["int32", "int64"])
@pytest.mark.parametrize("ones", [("stride_ak", "stride_bn"), ("stride_am", "stride_bk")], ids=["nn", "tt"])
@pytest.mark.parametrize("pointer, acc, precision, instruction", GEMM_CASES)
def test_gemm_compiles_for_hopper(pointer, acc, precision, instruction, ones, index_64):
    constants = dict(
        HAS_C=True,
        SPLIT=False,
        SUM_CHUNK=1,
        PRECISION=precision,
        ACC_DTYPE=acc,
        UPCAST=False,
        INDEX_64=index_64,
        HINTS=(1,) * len(HINTED),
        BLOCK_M=64,
        BLOCK_N=64,
        BLOCK_K=32,
        GROUP_M=8,
    )
    ptx = compile_ptx(gemm_tiles_kernel, pointer, constants, ones)
    assert instruction in ptx


@compiled
@pytest.mark.parametrize("split", [False, True], ids=["whole", "split-k"])
def test_split_k_compiles_for_hopper(split):
    constants = dict(HAS_C=True, SPLIT=split, SUM_CHUNK=8 if split else 1, PRECISION="ieee", ACC_DTYPE=tl.float32,
                     UPCAST=False, INDEX_64=False, HINTS=(1,) * len(HINTED), BLOCK_M=32, BLOCK_N=32, BLOCK_K=64,
                     GROUP_M=1)  # fmt: skip
    ptx = compile_ptx(gemm_tiles_kernel, "*fp32", constants, ("stride_ak", "stride_bn"))
    assert "fma.rn.f32" in ptx
    if split:
        assert "%nctaid.z" in ptx and "atom.global.gpu.acq_rel.add" in ptx  # slices counted per tile


@compiled
@pytest.mark.parametrize("hinted", [False, True], ids=["unhinted", "hinted"])
def test_alignment_hints_give_16_byte_async_copies(hinted):
    """bfloat16 rows of 1000 elements (2000 bytes) start on 16-byte boundaries, which Triton cannot see in an
    integer that is not a multiple of 16; the kernel's HINTS declare it, and the K loop's operand tiles then
    arrive by 16-byte asynchronous copies instead of element-by-element loads."""
    multiples = dict.fromkeys(("stride_am", "stride_bk", "stride_om", "N", "LOAD_N", "stride_ab", "stride_bb",
                               "stride_ob"), 8)  # fmt: skip
    hints = tuple(multiples.get(name, 1) if hinted else 1 for name in HINTED)
    constants = dict(HAS_C=False, SPLIT=False, SUM_CHUNK=1, PRECISION="ieee", ACC_DTYPE=tl.float32, UPCAST=False,
                     INDEX_64=False, HINTS=hints, BLOCK_M=64, BLOCK_N=64, BLOCK_K=32, GROUP_M=8)  # fmt: skip
    ptx = compile_ptx(gemm_tiles_kernel, "*bf16", constants, ("stride_ak", "stride_bn", "stride_cn", "stride_on"))
    assert "wgmma" in ptx
    assert ("cp.async.cg.shared.global" in ptx) == hinted


TMA_CASES = [
    # (element type, accumulator, precision, A K-major, B K-major, 3xTF32, product instruction)
    pytest.param("fp16", tl.float32, "ieee", True, False, False, "wgmma", id="float16-nn"),
    pytest.param("bf16", tl.float32, "ieee", False, True, False, "wgmma", id="bfloat16-tt"),
    pytest.param("fp32", tl.float32, "tf32", True, True, False, "wgmma", id="tf32"),
    pytest.param("fp32", tl.float32, "tf32", True, True, True, "wgmma", id="tf32x3"),
    pytest.param("fp64", tl.float64, "ieee", True, False, False, "mma.sync.aligned.m16n8k16.row.col.f64", id="float64"),
]


@compiled
@pytest.mark.parametrize("epilogue_split", [1, 2, 4])
@pytest.mark.parametrize("element, acc, precision, a_k_major, b_k_major, split3, instruction", TMA_CASES)
def test_tma_kernel_compiles_for_hopper(
    element, acc, precision, a_k_major, b_k_major, split3, instruction, epilogue_split
):
    bm, bn, bk = 64, 64, 32
    a = f"tensordesc<{element}[{bm},{bk}]>" if a_k_major else f"tensordesc<{element}[{bk},{bm}]>"
    b = f"tensordesc<{element}[{bn},{bk}]>" if b_k_major else f"tensordesc<{element}[{bk},{bn}]>"
    constants = dict(HAS_C=True, A_K_MAJOR=a_k_major, B_K_MAJOR=b_k_major, SPLIT3=split3, PRECISION=precision,
                     ACC_DTYPE=acc, UPCAST=False, INDEX_64=False, BLOCK_M=bm, BLOCK_N=bn, BLOCK_K=bk, GROUP_M=8,
                     NUM_SMS=132, FLATTEN=True, EPILOGUE_SPLIT=epilogue_split)  # fmt: skip
    descriptors = {"a_desc": a, "b_desc": b}
    if split3:
        descriptors.update(a_lo_desc=a, b_lo_desc=b)
    else:  # the launcher passes None for the low parts a product without them never reads
        constants.update(a_lo_desc=None, b_lo_desc=None)
    ptx = compile_ptx(gemm_tma_kernel, "*" + element, constants, ("stride_cn", "stride_on"), descriptors)
    assert instruction in ptx
    assert "cp.async.bulk.tensor" in ptx  # operand tiles arrive by TMA
    if split3:
        assert ptx.count("wgmma.mma_async") >= 3 * ptx.count("wgmma.commit_group") > 0


@compiled
@pytest.mark.parametrize("vec", [1, 2])
def test_transpose_compiles_for_hopper_with_64_bit_offsets(vec):
    constants = dict(
        SCALE=False, SPLIT=False, INDEX_64=True, VEC=vec, PACK=1, BLOCK_M=64, BLOCK_N=64, HINTS=(1,) * 6, BATCHED=False,
        EXPONENT=0,
    )  # fmt: skip
    ptx = compile_ptx(transpose_tiles_kernel, "*i32", constants, ("stride_an", "stride_on"))
    assert "ld.global" in ptx and "st.global" in ptx


@compiled
def test_hinted_transpose_loads_and_stores_in_vectors():
    """float32 rows of 100 items (100000 x 100): with M, N and the strides declared multiples of 4 (``HINTS``) the
    tile loads and stores in 16-byte vectors (stride_om stays unspecialized here, so it is hinted too)."""
    constants = dict(SCALE=False, SPLIT=False, INDEX_64=False, VEC=1, PACK=1, BLOCK_M=32, BLOCK_N=128, BATCHED=False)
    constants.update(HINTS=(4, 4, 4, 1, 4, 1), EXPONENT=0)
    ptx = compile_ptx(transpose_tiles_kernel, "*i32", constants, ("stride_an", "stride_on"))
    assert "ld.global.v4" in ptx and "st.global.v4" in ptx


@compiled
@pytest.mark.parametrize("side", [False, True])
@pytest.mark.parametrize(
    "hints, load, count",
    [((8, 8, 8), "ld.global.v4.b32", 2), ((2, 2, 2), "ld.global.b32", 8), ((1, 1, 1), "ld.global.b16", 16)],
)
def test_restride_loads_each_word_once_in_the_widest_vectors_hinted(
    side: bool, hints: tuple, load: str, count: int
) -> None:
    """16-bit words restrided 8 KiB a program by eight warps: rows whose FROM, TO and LENGTH are declared multiples of 8
    (or 2) words load in 16-byte (or 4-byte) vectors, undeclared ones word by word; a spreading block with a side
    issues as many loads as one without (a pointer chosen per word, not a second masked load); full blocks store
    16-byte vectors whatever the hints. Each thread moves 16 words."""
    constants = dict(DESCENDING=side, SIDE=side, PARTS=1, PART=4096, DEPS=4, INDEX_64=False, HINTS=hints)
    ptx = compile_ptx(restride_rows_kernel, "*i16", constants, num_warps=8, pointers={"state_ptr": "*i32"})
    loads = re.findall(r"ld\.global\.(?:v\d\.)?b\d+", ptx)
    assert set(loads) == {load} and len(loads) == count, loads
    assert "st.global.v4.b32" in ptx


@compiled
def test_row_copies_store_whole_vectors():
    """``copy_rows_kernel`` reads rows that start anywhere item by item and writes the padded rows (strides declared
    multiples of 16 items, each row written whole) in 16-byte vectors."""
    ptx = compile_ptx(copy_rows_kernel, "*fp32", dict(INDEX_64=False, BLOCK_M=32, BLOCK_N=128))
    assert set(re.findall(r"(?:ld|st)\.global[.\w]*", ptx)) == {"ld.global.b32", "st.global.v4.b32"}


@compiled
def test_tf32_split_compiles_for_hopper():
    constants = dict(
        SCALE=False, SPLIT=True, INDEX_64=False, VEC=1, PACK=1, BLOCK_M=64, BLOCK_N=64, HINTS=(1,) * 6, BATCHED=False,
        EXPONENT=0,
    )  # fmt: skip
    ptx = compile_ptx(transpose_tiles_kernel, "*fp32", constants, ("stride_an", "stride_on"))
    assert ptx.count("st.global") >= 2  # high and low parts
    assert "atom" not in ptx


@compiled
@pytest.mark.parametrize("words, exponent", [("*i64", 0x7FF0000000000000), ("*i32", 0x7F800000)])
def test_checked_copy_sets_its_flag_once_a_tile(words: str, exponent: int) -> None:
    """LU's column-major copy of a batch (``transpose_tiles_kernel`` with EXPONENT) compiles for Hopper with one atomic
    a program (behind the test whether its tile holds a non-finite item); without EXPONENT there is none (above)."""
    constants = dict(
        SCALE=False, SPLIT=False, INDEX_64=False, VEC=1, PACK=1, BLOCK_M=32, BLOCK_N=64, HINTS=(1,) * 6, BATCHED=True,
        EXPONENT=exponent,
    )  # fmt: skip
    ptx = compile_ptx(transpose_tiles_kernel, words, constants, ("stride_an",), pointers={"flag_ptr": "*i32"})
    assert ptx.count("atom.global") == 1, ptx.count("atom.global")


@compiled
@pytest.mark.parametrize("pointer, vec", [("*i8", 1), ("*i64", 1), ("*i64", 2)])
@pytest.mark.parametrize("side", [256, 16384])
def test_c2r_steps_compile_without_spills(pointer: str, vec: int, side: int) -> None:
    """The in-place C2R steps at their largest tiles (ONCHIP_ITEMS words per program, 16 warps) keep every
    gathered word in registers: no local memory; and their staged forms (long rows or columns through
    scratch, 4096 words a step, 4 warps) compile too. vec 2: 16-byte items as two words."""
    side //= vec
    per_program = 16384 // (side * vec)
    for wide in (False, True):  # 64-bit products of the row step for B * B >= 2^31
        constants = dict(BLOCK_N=side, ROWS=per_program, STAGED=False, VEC=vec, WIDE=wide)
        rows = compile_ptx(shuffle_rows_kernel, pointer, constants, num_warps=16)
        assert "ld.global" in rows and "ld.local" not in rows
        assert ("rem.s64" in rows) == wide  # the 64-bit modulo
    for rotate, wide in ((True, False), (False, False), (False, True)):  # 64-bit flat index when M N >= 2^31
        constants = dict(BLOCK_M=side, COLS=per_program, ROTATE=rotate, STAGED=False, VEC=vec, WIDE=wide)
        columns = compile_ptx(shuffle_columns_kernel, pointer, constants, num_warps=16)
        assert "ld.global" in columns and "ld.local" not in columns
        assert ("div.s64" in columns or "div.u64" in columns) == wide
    constants = dict(BLOCK_N=4096 // vec, ROWS=1, STAGED=True, VEC=vec, WIDE=True)
    staged_rows = compile_ptx(shuffle_rows_kernel, pointer, constants)
    constants = dict(BLOCK_M=512 // vec, COLS=8, ROTATE=False, STAGED=True, VEC=vec, WIDE=True)
    staged_columns = compile_ptx(shuffle_columns_kernel, pointer, constants)
    for ptx in (staged_rows, staged_columns):
        assert "ld.local" not in ptx and ptx.count("bar.sync") >= 2


@compiled
@pytest.mark.parametrize("pointer, piece", [("*i8", 2048), ("*i16", 1024), ("*i32", 512), ("*i64", 256)])
@pytest.mark.parametrize("ahead", [1, 8, 16])
def test_chunk_walk_keeps_its_window_in_registers(pointer: str, piece: int, ahead: int) -> None:
    """The chunk walk (``permute_chunks_kernel``) compiles for sm_90 with AHEAD chunks of a 2 KiB piece held in
    registers (no local-memory spills), a barrier between a window's loads and its stores, 64-bit table reads."""
    table = {"table_ptr": "*i64"}
    constants = dict(AHEAD=ahead, BLOCK=piece, CHUNK_MULTIPLE=1)
    save = compile_ptx(permute_chunks_kernel, pointer, dict(constants, SAVE=True), pointers=table)
    walk = compile_ptx(permute_chunks_kernel, pointer, dict(constants, SAVE=False), pointers=table)
    assert "ld.global" in save and "st.global" in save
    assert "ld.local" not in walk and "st.local" not in walk
    assert "bar.sync" in walk
    assert "ld.global.b64" in walk or "ld.global.u64" in walk


@compiled
@pytest.mark.parametrize("multiple, vector", [(1, "ld.global.b32"), (2, "ld.global.v2.b32"), (4, "ld.global.v4.b32")])
def test_chunk_walk_moves_hinted_chunks_in_vectors(multiple: int, vector: str) -> None:
    """Chunks of 100 words (100000 x 100 float32, or bfloat16 moved as 32-bit words: 128-word pieces, four chunks in
    flight on one warp, as ``_launch_chunks`` runs them) declared multiples of 4 or 2 (``CHUNK_MULTIPLE``) load and
    store in 16- or 8-byte vectors only; undeclared, word by word."""
    constants = dict(AHEAD=4, BLOCK=128, CHUNK_MULTIPLE=multiple, SAVE=False)
    walk = compile_ptx(permute_chunks_kernel, "*i32", constants, pointers={"table_ptr": "*i64"}, num_warps=1)
    assert set(re.findall(r"ld\.global\.(?:v\d\.)?b32", walk)) == {vector}
    assert set(re.findall(r"st\.global\.(?:v\d\.)?b32", walk)) == {vector.replace("ld", "st")}


@compiled
@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("group, block", [(32, 64), (64, 16)])
def test_interchanges_compile_to_one_permutation_per_group(reverse: bool, group: int, block: int) -> None:
    """Row interchanges: each group (32, or 64 for narrow arrays) tracked in registers (no cross-thread step, no
    local memory), so a group costs two barriers: after its gathers and after its stores."""
    ptx = compile_ptx(interchange_rows_kernel, "*fp64", dict(REVERSE=reverse, GROUP=group, BLOCK=block))
    assert "ld.local" not in ptx and ptx.count("bar.sync") == 2


@compiled
@pytest.mark.parametrize("pointer", ["*fp64", "*fp32"])
@pytest.mark.parametrize(
    "grid_sync, shared", [(False, False), (False, True), (True, False)], ids=["one-program", "shared", "grid"]
)
def test_panel_kernel_stores_its_candidate_row_from_registers(pointer: str, grid_sync: bool, shared: bool) -> None:
    """lu_panel_kernel (128 rows over four warps, 32 columns): the candidate row leaves each column from the
    registers that hold it, not through a shared-memory copy of the whole block (32 stores a thread per column,
    Triton's layout for coalesced stores); with one program per panel its columns are unrolled, so that column j
    updates only the 31 - j columns right of it (one FMA each, the comparisons folded away). With SHARED the row
    goes through the kernel's own static shared array (32 predicated stores and 32 loads a thread per column), not
    through global memory."""
    constants = dict(
        ROWS=128, NB=32, PARTS=128, GRID_SYNC=grid_sync, WRITE_PERM=True, ASM=True, SHARED=shared, ROWS_IN_THREADS=False
    )
    pointers = {name: "*i32" for name in ("piv_ptr", "info_ptr", "perm_ptr", "at_ptr", "sync_ptr")}
    compiled = compile_hopper(lu_panel_kernel, pointer, constants, num_warps=4, pointers=pointers)
    ptx = compiled.asm["ptx"]
    assert compiled.metadata.shared <= 1024 and ".local" not in ptx  # the reductions' few bytes
    assert ptx.count(f"fma.rn.f{pointer[-2:]}") == (31 if grid_sync else 32 * 31 // 2)
    stores = {"shared": ptx.count(f"st.shared.f{pointer[-2:]}"), "global": ptx.count(f"st.global.f{pointer[-2:]}")}
    columns = 1 if grid_sync else 32  # the loop's one body, or the unrolled columns
    assert stores == {"shared": 32 * 32 * shared, "global": 0 if shared else 32 * columns}
    assert ("densela_shared[512]" in ptx) == shared and ptx.count(f"ld.shared.f{pointer[-2:]}") >= 32 * 32 * shared


@compiled
@pytest.mark.parametrize("pointer", ["*fp64", "*fp32"])
@pytest.mark.parametrize("rows_in_threads", [True, False])
def test_panel_and_permutation_keep_their_rows_in_threads_in_either_memory_order(
    pointer: str, rows_in_threads: bool
) -> None:
    """lu_panel_kernel (a one-warp program of 32 rows by 16 columns, the grid exchange) and permute_solve_kernel (16
    rows by 8 columns): with ROWS_IN_THREADS a row-major block (unit column stride) gets the layout of a
    column-major one, rows across the lanes, and no more shuffles. Without it Triton lays 16 threads along the
    columns of a row-major block, and every column's pick and pivot search crosses lanes (float64: SHFL 159 against
    43 in the panel's SASS); float32 runs faster so on the H100 (lu.ROWS_IN_THREADS)."""
    ints = {name: "*i32" for name in ("piv_ptr", "info_ptr", "perm_ptr", "at_ptr", "sync_ptr")}
    panel = dict(ROWS=32, NB=16, PARTS=256, GRID_SYNC=True, WRITE_PERM=True, ASM=True, SHARED=False)
    permute = dict(GATHER=True, NB=16, BLOCK=8)
    compiled = {
        unit: [
            compile_hopper(kernel, pointer, {**constants, "ROWS_IN_THREADS": rows_in_threads}, (unit,),
                           num_warps=1, pointers=ints)
            for kernel, constants in ((lu_panel_kernel, panel), (permute_solve_kernel, permute))
        ]
        for unit in ("stride_am", "stride_an")
    }  # fmt: skip
    for kernel, rows_across_lanes in enumerate(("threadsPerWarp = [32, 1]", "threadsPerWarp = [16, 2]")):
        column_major, row_major = (compiled[unit][kernel].asm for unit in ("stride_am", "stride_an"))
        assert rows_across_lanes in column_major["ttgir"]
        assert rows_across_lanes in row_major["ttgir"] or not rows_in_threads
    assert ("threadsPerWarp = [32, 1]" in compiled["stride_an"][0].asm["ttgir"]) == rows_in_threads
    panel_shuffles = [compiled[unit][0].asm["ptx"].count("shfl.sync") for unit in ("stride_am", "stride_an")]
    assert (panel_shuffles[0] == panel_shuffles[1]) == rows_in_threads


@compiled
@pytest.mark.parametrize("pointer", ["*fp32", "*fp64"])
def test_substitution_broadcasts_each_row_from_its_lane(pointer: str) -> None:
    """permute_solve_kernel on a column-major 32 x 8 block (a row per lane, one warp): each substitution step (four
    a turn of the loop) takes row i from lane i by one shuffle per register (8 columns, two shuffles each in
    float64), not by a sum across the lanes (five shuffle rounds a register); nothing goes through shared memory."""
    constants = dict(GATHER=True, NB=32, BLOCK=8, ROWS_IN_THREADS=False)
    compiled = compile_hopper(
        permute_solve_kernel, pointer, constants, ("stride_am",), num_warps=1, pointers={"perm_ptr": "*i32"}
    )
    ptx = compiled.asm["ptx"]
    assert ptx.count("shfl.sync.idx") == ptx.count("shfl.sync") == 4 * (16 if pointer == "*fp64" else 8)
    assert compiled.metadata.shared == 0 and ".local" not in ptx


@compiled
@pytest.mark.parametrize("lower", [True, False], ids=["lower", "upper"])
@pytest.mark.parametrize(("vectors", "cols"), [("*fp64", 1), ("*fp64", 16), ("*fp64", 32), ("*fp32", 32)])
def test_sweep_solve_compiles_for_hopper(lower: bool, vectors: str, cols: int) -> None:
    """The one-launch triangular solve, float32 triangle: tickets and the count of solved blocks through atomics
    at GPU scope (Triton turns the acquiring add of 0 into an acquire load), no register spills; with 16 or
    more right-hand sides a program, its tile products on tensor cores for float64 (DMMA), by FMA for float32
    (IEEE)."""
    pointers = {"t_ptr": "*fp32", "inv_ptr": "*fp64", "beside_ptr": "*fp64", "perm_ptr": "*i32", "state_ptr": "*i32"}
    constants = dict(LOWER=lower, PERMUTE=lower, BLOCK=64, COLS=cols, DOT=cols >= 16)
    ptx = compile_ptx(sweep_solve_kernel, vectors, constants, ("stride_tm",), pointers=pointers)
    assert "atom.global.gpu.acq_rel.add" in ptx  # the ticket
    assert "ld.global.gpu.acquire" in ptx and "atom.global.gpu.release.exch" in ptx  # wait for, publish a block
    assert ".local" not in ptx
    assert ("mma.sync.aligned.m16n8k16.row.col.f64" in ptx) == (vectors == "*fp64" and cols >= 16)


@compiled
@pytest.mark.parametrize("pointer", ["*fp32", "*fp64"])
def test_sweep_factors_compile_for_hopper(pointer: str) -> None:
    """The sweeps' set-up (both triangles' diagonal inverses and their products with the tiles beside): a dynamic
    loop over the block's 64 rows (no unrolling: fully unrolled, such a solve took minutes to compile), the products
    with the tiles on float64 tensor cores (DMMA), no register spills."""
    pointers = {"inv_ptr": "*fp64", "beside_ptr": "*fp64"}
    ptx = compile_ptx(sweep_factors_kernel, pointer, dict(UNIT_LOWER=True, BLOCK=64, DOT=True), ("stride_tm",),
                      pointers=pointers)  # fmt: skip
    assert "mma.sync.aligned.m16n8k16.row.col.f64" in ptx
    assert ".local" not in ptx
    assert ptx.count("div.rn.f64") < 64  # one division a step in a loop, not 64 steps unrolled


@compiled
@pytest.mark.parametrize("ones", [("stride_an",), ("stride_am",)], ids=["row-major", "column-major"])
def test_matvec_compiles_for_hopper(ones):
    ptx = compile_ptx(matvec_kernel, "*fp64", dict(BLOCK_M=64, BLOCK_N=128), ones)
    assert "fma.rn.f64" in ptx and ".local" not in ptx


@compiled
@pytest.mark.parametrize("pointer", ["*fp32", "*fp64"])
def test_finite_check_counts_programs_in_with_one_atomic(pointer: str) -> None:
    """``nonfinite_flag_kernel``: one acquire-release 64-bit addition a program (its count and its verdict), an
    exchange that sets the word back to zero from the last one; rows of unit stride and a multiple of 16 items
    (``lu._as_rows`` views a dense array as rows of up to 256) loaded in 16-byte vectors."""
    ptx = compile_ptx(nonfinite_flag_kernel, pointer, dict(BLOCK_R=16, BLOCK_C=256), ("stride_c",),
                      pointers={"state_ptr": "*i64", "flag_ptr": "*i32"}, sixteens=("C", "stride_r"))  # fmt: skip
    assert "atom.global.gpu.acq_rel.add.u64" in ptx, "no counting in with acquire-release order"
    assert ptx.count("atom.") == 2, "one addition and one exchange"
    assert "ld.global.v4.b32" in ptx or "ld.global.v2.b64" in ptx, "rows not read in 16-byte vectors"


WARP_INT_POINTERS = {name: "*i32" for name in ("piv_ptr", "info_ptr", "flag_ptr", "count_ptr", "perm_ptr")}


@compiled
@pytest.mark.parametrize("rows, cols, lanes, warps, split", [(8, 8, 1, 1, 1), (64, 64, 2, 4, 4)])
def test_lu_warp_kernel_flag_counts_programs_in(rows: int, cols: int, lanes: int, warps: int, split: int) -> None:
    """With FLAG, each program adds whether it met a zero pivot and counts itself in with atomics; the last one in
    reads both counters back to zero and stores the flag. The matrices stay in registers."""
    constants = dict(ROWS=rows, COLS=cols, LANES=lanes, WARPS=warps, SPLIT=split, FLAG=True, WRITE_PERM=False)
    ptx = compile_ptx(lu_warp_kernel, "*fp64", constants, num_warps=warps, pointers=WARP_INT_POINTERS)
    assert "ld.local" not in ptx and "st.local" not in ptx
    assert "atom.global.gpu.acq_rel.add.u32" in ptx, "no counting in with acquire-release order"
    assert ptx.count("atom.") == 4, "max, add and two exchanges, one each"


@compiled
@pytest.mark.parametrize("pointer", ["*fp32", "*fp64"])
@pytest.mark.parametrize(
    "rows, cols, lanes, warps, split",
    [(8, 8, 1, 1, 1), (16, 16, 1, 1, 1), (32, 32, 1, 2, 1), (16, 64, 2, 1, 1), (64, 64, 2, 4, 4), (128, 32, 1, 4, 4)],
)
def test_lu_warp_kernel_keeps_each_matrix_in_registers(
    pointer: str, rows: int, cols: int, lanes: int, warps: int, split: int
) -> None:
    """The batched LU of ``lu_warp_kernel`` compiles for sm_90 with every matrix in registers (no local memory).
    The pivot search is two (float32) or three (float64) integer reductions a column (``_first_largest``): within
    one warp over a matrix's rows, a ``redux.sync`` each for a matrix of 32 rows (the whole warp), shuffles for
    smaller ones; across warps over each warp's rows, a ``redux.sync`` each. Within one warp nothing goes through
    shared memory: the pivot row moves between lanes by shuffles. Across warps each warp's candidate row and record go
    through the program's own shared array, behind one barrier a column: one predicated store and one load per 16
    bytes of a thread's row, one record stored per warp and read by every thread, nothing through global memory."""
    constants = dict(ROWS=rows, COLS=cols, LANES=lanes, WARPS=warps, SPLIT=split, FLAG=False, WRITE_PERM=False)
    ptx = compile_ptx(lu_warp_kernel, pointer, constants, num_warps=warps, pointers=WARP_INT_POINTERS)
    assert "ld.local" not in ptx and "st.local" not in ptx and "atom." not in ptx
    reductions = (3 if pointer == "*fp64" else 2) * cols if rows == 32 or split > 1 else 0
    assert ptx.count("redux.sync.") == reductions
    if split == 1:
        assert "shfl.sync.idx.b32" in ptx
        assert "st.shared" not in ptx and "bar.sync" not in ptx
    else:
        assert "shfl.sync.idx.b32" not in ptx and "densela_shared" in ptx
        assert ptx.count("bar.sync") == cols, "one barrier a column"
        assert ptx.count("st.shared.v4.b32") == cols and ptx.count("ld.shared.v4.b32") == split * cols, "records"
        width = int(pointer[-2:])
        pack = min(128 // width, cols // lanes)  # 16-byte vectors of a thread's consecutive columns
        vector = f"shared.v{pack}.f{width}"
        assert ptx.count(f"st.{vector}") == ptx.count(f"ld.{vector}") == cols // lanes // pack * cols
        assert ptx.count("ld.global") == cols // lanes + 1  # the matrix's load, info (an earlier panel's)


@compiled
@pytest.mark.parametrize("pointer", ["*fp32", "*fp64"])
@pytest.mark.parametrize("rows, warps, split", [(128, 4, 4), (64, 2, 2), (32, 2, 1)])
def test_lu_warp_kernel_as_a_panel_writes_the_permutation(pointer: str, rows: int, warps: int, split: int) -> None:
    """``lu_warp_kernel`` as a panel of 32 columns of the blocked batch path (WRITE_PERM): the interchanges as a
    permutation (two int32 stores a row), info read back from the earlier panels, the panel still in registers."""
    constants = dict(ROWS=rows, COLS=32, LANES=1, WARPS=warps, SPLIT=split, FLAG=False)
    ptx = {
        perm: compile_ptx(lu_warp_kernel, pointer, dict(constants, WRITE_PERM=perm), num_warps=warps,
                          pointers=WARP_INT_POINTERS)
        for perm in (False, True)
    }  # fmt: skip
    assert "ld.local" not in ptx[True] and "st.local" not in ptx[True]
    stores = {perm: text.count("st.global.b32") for perm, text in ptx.items()}
    assert stores[True] == stores[False] + 2, "the row's final position and the row at its position"
