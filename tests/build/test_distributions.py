"""The two distributions, built and installed as users install them: into clean venvs,
run from outside the checkout, with nothing of the checkout on the path."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import orjson
import pytest

ROOT = Path(__file__).resolve().parents[2]
CONSTRAINTS = ROOT / "deploy" / "constraints.txt"
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MODERATION_", "PYTHON"))}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if ".venv" not in p
    )
    env.pop("VIRTUAL_ENV", None)
    return env


def _venv(where: Path, *install: str) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    pip = [str(where / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(CONSTRAINTS)]
    subprocess.run([*pip, *install], check=True, env=_clean_env())
    return where / "bin"


def _run(bin_dir: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(bin_dir / args[0]), *args[1:]],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_worker_wheel_serves_its_own_model(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(ROOT)],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("moderation-*.whl"))
    bin_dir = _venv(tmp_path / "venv", str(wheel))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    version = _run(bin_dir, "moderation", "--version", cwd=elsewhere)
    assert version.returncode == 0, version.stderr
    from moderation import __version__

    assert version.stdout.strip() == f"moderation {__version__}"
    out = _run(bin_dir, "moderation", "classify", "hello", cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    row = orjson.loads(out.stdout)
    assert row["decision"] in ("allow", "nudge") and set(row["scores"]) >= {"toxic"}
    # It loaded the model from inside the installed package, not from a checkout.
    where = _run(
        bin_dir,
        "python",
        "-c",
        "from moderation.config import default_model_dir; print(default_model_dir())",
        cwd=elsewhere,
    )
    assert "site-packages/moderation/models/" in where.stdout
    # Run-time dependencies are what the code imports: no transformers, no torch.
    listed = _run(bin_dir, "python", "-m", "pip", "list", "--format=freeze", cwd=elsewhere)
    names = {line.split("==")[0].lower() for line in listed.stdout.split()}
    assert {"onnxruntime", "tokenizers", "aiohttp"} <= names
    assert not names & {"transformers", "torch", "huggingface-hub", "typer", "rich"}
    assert any((tmp_path / "venv").glob("lib/python*/site-packages/moderation/py.typed"))


def test_the_client_wheel_installs_without_the_model_runtime(tmp_path: Path) -> None:
    build = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "build_client.py"), "--out", str(tmp_path)],
        check=True,
        capture_output=True,
        text=True,
    )
    wheel = Path(build.stdout.strip())
    bin_dir = _venv(tmp_path / "venv", str(wheel))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    probe = (
        "import importlib.util, moderation.client as c, moderation.metrics as m;"
        "c.ModerationClient;"
        "print([n for n in ('onnxruntime', 'tokenizers', 'numpy', 'redis', 'transformers')"
        " if importlib.util.find_spec(n)])"
    )
    out = _run(bin_dir, "python", "-c", probe, cwd=elsewhere)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_every_subpackage_is_listed_for_the_wheel() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {
        ".".join(p.parent.relative_to(ROOT).parts)
        for p in (ROOT / "moderation").rglob("__init__.py")
    }
    assert found <= listed, f"add to [tool.setuptools] packages: {sorted(found - listed)}"
    assert "moderation.models" in listed
