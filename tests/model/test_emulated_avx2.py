"""The AVX2 evaluation holds on any machine: AVX2's int8 arithmetic, emulated.

ONNX Runtime's AVX2 and AVX-512 VNNI int8 kernels score some examples differently,
so the model card keeps one report per CPU kind. scripts/emulate-avx2.sh makes a
process run ONNX Runtime's AVX2 kernels: under qemu's user-mode emulator; natively
through Linux's CPUID faulting and a preloaded handler; or natively with a copy of
ONNX Runtime whose kernel library never takes its AVX-512 branch (scripts/
mlas_avx2.py). This runs the capability where the two kinds differ most (negated
hate) under qemu and asks for eval-avx2.json's exact result, and for the same scores,
bit for bit, from each native way: on a VNNI machine the shipped model is then held to
what AVX2 machines measure too, and on an AVX2 machine the emulation is held to the
real CPU. Where a native way runs, the whole AVX2 report is made again and must equal
the stored one."""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from moderation.config import default_model_dir
from moderation.config.model import DEFAULT_SCREEN_NAME
from moderation.evaluation import run

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "emulate-avx2.sh"
PATCHER = SCRIPT.with_name("mlas_avx2.py")
CAPABILITY = "negated_hate"
# Under qemu every text takes about half a second: where CPUID faulting checks the whole
# report natively, qemu only has to agree with it, score for score, on a few texts.
COMPARED = 30
# argv: the capability, then "row" (its behaviour row, as the report keeps it) or N
# (the int8 scores of its first N examples), then "pair" for the shipped screen in front.
SNIPPET = """
import json, sys
from moderation.build.evaluate import int8_scores
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, default_model_dir
from moderation.config.model import DEFAULT_SCREEN_NAME
from moderation.cpu import cpu_info
from moderation.evaluation import run
from moderation.evaluation.behaviour import suite
from moderation.policy import Policy
screen = default_model_dir(DEFAULT_SCREEN_NAME) if sys.argv[3:] == ["pair"] else None
c = Classifier(ClassifierSettings(screen_dir=screen))
name, what = sys.argv[1:3]
out = {"kind": cpu_info().kind}
if what == "row":
    out["row"] = run.behaviour(c, Policy(c.manifest["thresholds"]), {name})[name]
else:
    texts = [t for cap in suite() if cap.name == name for t in cap.examples][: int(what)]
    out["scores"] = int8_scores(c, texts).tolist()
print(json.dumps(out))
"""
# The whole report, as `moderation eval` makes it, printed as JSON.
REPORT_SNIPPET = """
import json, sys
from pathlib import Path
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings
from moderation.evaluation import run
from moderation.policy import Policy
c = Classifier(ClassifierSettings())
print(json.dumps(run.evaluate(c, Policy(c.manifest["thresholds"]), Path(sys.argv[1]))))
"""
DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data"
HAS_CC = shutil.which("cc") is not None or shutil.which("gcc") is not None
FLAGS = set(Path("/proc/cpuinfo").read_text().split())
CPUID_FAULTING = "cpuid_fault" in FLAGS
AVX512 = "avx512f" in FLAGS
pytestmark = pytest.mark.slow


def emulated(way: str, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SCRIPT), "python", "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
        env={**os.environ, "EMULATE_WITH": way},
    )


def capability(way: str, what: str, *pair: str) -> dict[str, Any]:
    out = emulated(way, SNIPPET, CAPABILITY, what, *pair)
    assert out.returncode == 0, out.stderr[-3000:]
    got: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["kind"] == "avx2", f"EMULATE_WITH={way} did not hide AVX-512 from CPUID"
    return got


@pytest.fixture(scope="module")
def avx2_report() -> dict[str, Any]:
    report = run.reports(default_model_dir()).get("avx2")
    assert report, (
        "no eval-avx2.json beside the model: "
        "run `scripts/emulate-avx2.sh moderation eval --data ../shared/data --write`"
    )
    return report


needs_qemu = pytest.mark.skipif(
    shutil.which("qemu-x86_64") is None,
    reason="qemu-x86_64 missing (Debian qemu-user): the AVX2 report is not checked",
)
needs_faulting = pytest.mark.skipif(
    not (HAS_CC and CPUID_FAULTING), reason="no CPUID faulting or no cc"
)


@functools.cache
def patchable() -> bool:
    """Whether scripts/mlas_avx2.py knows the installed ONNX Runtime's library."""
    check = [sys.executable, str(PATCHER), "--check"]
    return subprocess.run(check, capture_output=True, timeout=120, check=False).returncode == 0


def native_way() -> str | None:
    """The native way the whole report is checked with: CPUID faulting where the CPU
    offers it, else the patched copy of ONNX Runtime on an AVX-512 machine."""
    if HAS_CC and CPUID_FAULTING:
        return "cpuid"
    return "patch" if AVX512 and patchable() else None


# The patched copy matters where AVX-512 would otherwise be taken; on an AVX2 machine
# it runs what the installed library runs.
needs_avx512 = pytest.mark.skipif(
    not (AVX512 and patchable()), reason="no AVX-512 to cut, or an ONNX Runtime build not known"
)


@needs_qemu
@pytest.mark.skipif(
    native_way() is not None and DATA.is_dir(),
    reason="checked natively: the whole report, by a way that agrees with qemu",
)
def test_qemu_reproduces_the_avx2_report(avx2_report: dict[str, Any]) -> None:
    was = avx2_report["behaviour"][CAPABILITY]
    got = capability("qemu", "row")["row"]
    assert (got["passed"], got["failures"]) == (was["passed"], was["failures"])


@functools.cache
def qemu_scores() -> list[list[float]]:
    scores: list[list[float]] = capability("qemu", str(COMPARED))["scores"]
    return scores


@needs_qemu
@pytest.mark.parametrize(
    "way",
    [pytest.param("cpuid", marks=needs_faulting), pytest.param("patch", marks=needs_avx512)],
)
def test_a_native_way_scores_as_qemu_bit_for_bit(way: str) -> None:
    native = capability(way, str(COMPARED))["scores"]
    assert len(native) == COMPARED
    assert native == qemu_scores()


@needs_avx512
@pytest.mark.skipif("avx512_vnni" not in FLAGS, reason="no AVX-512 VNNI to tell apart")
def test_the_patched_copy_changes_the_scores() -> None:
    # A copy that cut nothing would score as the host does: VNNI's exact sums differ
    # from AVX2's (which can saturate) on these texts.
    host = subprocess.run(
        [sys.executable, "-c", SNIPPET, CAPABILITY, str(COMPARED)],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    own = json.loads(host.stdout.strip().splitlines()[-1])
    assert own["kind"] != "avx2"
    assert own["scores"] != capability("patch", str(COMPARED))["scores"]


@pytest.mark.skipif(native_way() is None, reason="no native way to run the AVX2 kernels")
def test_the_pair_reproduces_its_avx2_row() -> None:
    # The screen is on by default on AVX2 (rule 65) by the report beside it, made with
    # the patched copy: where the pair differs most from the model alone, the same row.
    way = native_way()
    assert way is not None
    stored = run.reports(default_model_dir(DEFAULT_SCREEN_NAME)).get("avx2")
    assert stored, "no eval-avx2.json beside the screen"
    got = capability(way, "row", "pair")["row"]
    was = stored["behaviour"][CAPABILITY]
    assert (got["passed"], got["failures"]) == (was["passed"], was["failures"])


@needs_faulting
def test_cpuid_faulting_leaves_real_faults_to_the_programs_handler() -> None:
    # faulthandler installs its SIGSEGV handler after the preloaded one; CPUID (numpy's
    # feature detection) must still be answered, and a real fault reach faulthandler.
    code = (
        "import faulthandler, ctypes; faulthandler.enable(); "
        "import numpy; from moderation.cpu import cpu_info; print(cpu_info().kind, flush=True); "
        "ctypes.string_at(0)"
    )
    out = emulated("cpuid", code)
    assert out.stdout.strip() == "avx2"
    assert out.returncode == -11
    assert "Fatal Python error: Segmentation fault" in out.stderr


@pytest.mark.skipif(native_way() is None, reason="no native way to run the AVX2 kernels")
@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
# The emulated run gets the 900 s its subprocess is given, not the suite's 300 s default:
# on the 2-core Zen 4 with the other core busy it took just over 300 s (stop 85).
@pytest.mark.timeout(900)
def test_the_whole_avx2_report_reproduces_natively(
    avx2_report: dict[str, Any],
) -> None:
    # At native speed the whole report fits a CI run (a few minutes): every split,
    # capability, evasion and benign-chat figure of eval-avx2.json, to the last bit.
    way = native_way()
    assert way is not None
    out = emulated(way, REPORT_SNIPPET, str(DATA))
    assert out.returncode == 0, out.stderr[-3000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got["cpu_kind"] == "avx2" and got["emulated"]
    assert got == avx2_report
