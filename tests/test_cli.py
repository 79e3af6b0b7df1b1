"""The ``densela`` command: ``info`` names the backend, ``check`` passes on small sizes and writes JSON."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import GPU
from densela._env import BACKEND_CPU, BACKEND_INTERPRETER
from densela.check import CheckRow, parse_size
from densela.cli import main

BACKENDS = ("Triton kernels on ", BACKEND_INTERPRETER, BACKEND_CPU)


def run_cli(*args: str, interpret: bool | None = None) -> subprocess.CompletedProcess[str]:
    """``python -m densela.cli ARGS`` in a fresh process; ``interpret`` None keeps TRITON_INTERPRET as it is."""
    env = dict(os.environ)
    if interpret is not None:
        env.pop("TRITON_INTERPRET", None)
        if interpret:
            env["TRITON_INTERPRET"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "densela.cli", *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )


def test_info_prints_versions_and_backend(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info"]) == 0
    out = capsys.readouterr().out
    first = out.splitlines()[0]
    assert first.startswith("backend: ")
    assert first.removeprefix("backend: ").startswith(BACKENDS)
    for name in ("python", "densela", "torch", "triton", "numpy", "cupy"):
        assert f"\n{name}: " in out


def test_info_json_has_the_fields(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--json"]) == 0
    env = json.loads(capsys.readouterr().out)
    assert env["backend"].startswith(BACKENDS)
    assert set(env["versions"]) == {"densela", "torch", "triton", "numpy", "cupy"}
    assert env["versions"]["densela"] is not None
    assert isinstance(env["gpus"], list)
    for gpu in env["gpus"]:
        assert set(gpu) == {"index", "name", "compute_capability", "sm_count", "memory_gib"}


def test_info_backend_follows_triton_interpret() -> None:
    done = run_cli("info", "--json", interpret=True)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["backend"] == BACKEND_INTERPRETER


def test_check_small_passes_and_writes_json(tmp_path) -> None:
    # Without TRITON_INTERPRET: on a machine without a GPU, check must switch the interpreter on itself.
    path = tmp_path / "check.json"
    done = run_cli("check", "--size", "small", "--json", str(path), interpret=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "densela check: " in done.stdout
    record = json.loads(path.read_text())
    assert set(record) == {"environment", "size", "timing", "rows", "passed"}
    assert record["passed"] is True
    assert record["size"] == {"m": 64, "n": 48, "k": 40}
    gpu = bool(record["environment"]["gpus"])
    if not gpu:
        assert record["environment"]["backend"] == BACKEND_INTERPRETER
    rows = record["rows"]
    assert {row["op"] for row in rows} == {"matmul", "gemm", "transpose", "transpose_", "add"}
    assert {row["dtype"] for row in rows if row["op"] == "matmul"} == {
        "float32/ieee",
        "float32/tf32",
        "float32/tf32x3",
        "float16",
        "bfloat16",
        "float64",
    }
    for row in rows:
        assert set(row) == {*CheckRow.__dataclass_fields__, "ok"}
        assert row["ok"] and row["err_densela"] <= row["bound"]
        assert (row["ms_densela"] is None) == (not gpu)
    if not gpu:
        assert "times: need a GPU" in done.stdout


def test_check_fails_on_an_error_above_its_bound(monkeypatch: pytest.MonkeyPatch, capsys) -> None:
    import densela.check as check

    row = CheckRow("matmul", "a @ b", "2x2x2", "float32/ieee", 1.0, 1e-7, 1e-6, "torch.matmul")
    monkeypatch.setattr(check, "run_checks", lambda size: [row])
    assert check.run_check("small") == 1
    assert "FAIL" in capsys.readouterr().out


def test_check_rejects_a_bad_size(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--size", "huge"])
    assert exit_info.value.code == 2
    assert "size must be" in capsys.readouterr().err


def test_bench_rejects_an_unknown_provider(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "quick", "--provider", "cublas", "--provider", "cuBLAS"]) == 2
    err = capsys.readouterr().err
    assert "unknown provider(s) cuBLAS" in err
    for name in ("densela", "cublas", "cupy", "cusolver", "magma", "numpy", "cpu-seq"):
        assert name in err


def test_size_option() -> None:
    assert parse_size("small", gpu=True) == (64, 48, 40)
    assert parse_size("large", gpu=False) == (4096, 4096, 4096)
    assert parse_size("7", gpu=False) == (7, 7, 7)
    with pytest.raises(ValueError, match="size"):
        parse_size("huge", gpu=False)
    with pytest.raises(ValueError, match="positive"):
        parse_size("0", gpu=False)


@pytest.mark.skipif(GPU, reason="on a GPU, densela tune measures (minutes)")
def test_tune_without_a_gpu_says_so(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tune", "--shape", "64x64x64"]) == 1
    assert "tuning measures kernels on a CUDA GPU; none found" in capsys.readouterr().err


@pytest.mark.skipif(not GPU, reason="densela tune measures kernels on a CUDA GPU")
def test_tune_stores_and_names_its_choice(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: os.PathLike
) -> None:
    """One small bucket tuned into a cache of the test's own: the file holds the choice, and the closing line names
    it (``GemmConfig.describe``) with its time and the built-in choice's."""
    from densela import tuning

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    try:
        assert main(["tune", "--shape", "64x64x64", "--dtype", "float32", "--quiet"]) == 0
        stored = json.loads(tuning.tuned_path(0).read_text())["entries"]
        (chosen,) = stored["ieee"].values()
        line = capsys.readouterr().out.strip().splitlines()[-1]
        assert "bucket" in line and "untuned" in line
        assert line.endswith(tuning.GemmConfig(**chosen).describe())
    finally:
        monkeypatch.undo()
        tuning.clear_cache()  # forget the test's tuned entries


@pytest.mark.parametrize(
    "args, message",
    [(["--shape", "64x64"], "--shape wants MxNxK"), (["--shape", "0x4x4"], "--shape wants MxNxK"),
     (["no-such-suite"], "unknown suite(s) no-such-suite")],
)  # fmt: skip
def test_tune_rejects_a_bad_shape_or_suite(capsys: pytest.CaptureFixture[str], args: list[str], message: str) -> None:
    assert main(["tune", *args]) == 2
    assert message in capsys.readouterr().err
