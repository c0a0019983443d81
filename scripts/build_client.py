"""Build the `moderation-client` wheel: the client library alone, for send-message APIs.

    python scripts/build_client.py [--out dist]

The worker's distribution (`pip install .`) carries the model and its runtime
(onnxruntime, tokenizers, numpy, redis). A send-message API needs none of that: it
imports `moderation.client` only. This builds a second wheel, from the same source
files, with just the modules that import needs and three dependencies (aiokafka,
orjson, prometheus-client). Install one distribution or the other, not both: the
worker's already contains the client.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# What `import moderation.client` reaches (tests/build/test_distributions.py checks
# the list by importing the client from the built wheel with no other module there).
MODULES = (
    "__init__.py",
    "py.typed",
    "backoff.py",
    "client.py",
    "config/__init__.py",
    "config/cache.py",
    "config/client.py",
    "config/kafka.py",
    "config/model.py",
    "config/source.py",
    "config/worker.py",
    "errors.py",
    "kafka/__init__.py",
    "kafka/admin.py",
    "kafka/auth.py",
    "kafka/clients.py",
    "kafka/replies.py",
    "kafka/send.py",
    "metrics.py",
    "policy.py",
    "schema.py",
)
DEPENDENCIES = ("aiokafka>=0.11", "orjson>=3.10", "prometheus-client>=0.20")


def version() -> str:
    """The package's version, read without importing it."""
    for line in (ROOT / "moderation" / "__init__.py").read_text().splitlines():
        if line.startswith("__version__"):
            return line.split("=", 1)[1].strip().strip("\"'")
    raise SystemExit("moderation/__init__.py has no __version__")


def pyproject() -> str:
    deps = ",\n".join(f'  "{d}"' for d in DEPENDENCIES)
    return f"""[build-system]
requires = ["setuptools>=77"]
build-backend = "setuptools.build_meta"

[project]
name = "moderation-client"
version = "{version()}"
description = "Send chat messages for moderation and await the verdict (client library only)."
requires-python = ">=3.11"
license = "Apache-2.0"
dependencies = [
{deps},
]

[tool.setuptools]
packages = ["moderation", "moderation.config", "moderation.kafka"]

[tool.setuptools.package-data]
moderation = ["schemas/*.json", "py.typed"]
"""


def build(out: Path) -> Path:
    """Build the wheel into ``out``; its path."""
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp)
        pkg = src / "moderation"
        pkg.mkdir()
        for name in MODULES:
            (pkg / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / "moderation" / name, pkg / name)
        shutil.copytree(ROOT / "moderation" / "schemas", pkg / "schemas")
        (src / "pyproject.toml").write_text(pyproject())
        done = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(src)],
            capture_output=True,
            text=True,
        )
        if done.returncode:
            sys.stderr.write(done.stdout + done.stderr)
            raise SystemExit(f"building moderation-client failed (pip exit {done.returncode})")
    return next(out.glob(f"moderation_client-{version()}-*.whl"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=ROOT / "dist")
    ns = p.parse_args(argv)
    print(build(ns.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
