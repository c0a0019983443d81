"""`moderation bench amx`: the shipped model on AMX int8 tiles against the same CPU's VNNI.

On a CPU with AMX int8 (Sapphire Rapids and later) ONNX Runtime's MLAS runs its u8s8
GEMMs on the tiles; refused the tile state, it keeps its AVX-512 VNNI kernels, and
ONNX Runtime has no option to choose. So each round starts two child processes, one
as the worker would run and one under scripts/without-amx.sh (which refuses that one
request), their order flipped every round, and each times the shipped model per chat
message (tokenization included, as the worker scores) and at fixed lengths (model
only). Both must give the same scores bit for bit: the sums are exact on either unit.
Needs a checkout (the script) and a C compiler.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from moderation.bench.stats import markdown_table, write_docs_section

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "without-amx.sh"
LENGTHS = (32, 128)
ARMS = ("AMX tiles (as shipped)", "VNNI kernels (tiles refused)")


def _child(messages: int, seed: int, repeats: int) -> dict[str, Any]:
    """Time this process's shipped model; what the parent reads from stdout."""
    from moderation.bench.model import chat_messages
    from moderation.classifier import Classifier, Encoded
    from moderation.config import ClassifierSettings
    from moderation.cpu import cpu_info

    clf = Classifier(ClassifierSettings())
    texts = chat_messages(messages, 0.0, seed)
    for t in texts[:50]:
        clf.scores(clf.encode(t))
    chat, digest = [], hashlib.sha256()
    for t in texts:
        start = time.perf_counter()
        row = clf.scores(clf.encode(t))
        chat.append(time.perf_counter() - start)
        digest.update(row.tobytes())
    fixed: dict[str, list[float]] = {}
    for n in LENGTHS:
        ids = np.full((n,), 1000, dtype=np.int64)
        ids[0], ids[-1] = 101, 102
        enc = Encoded(ids, False)
        clf.scores(enc)
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            clf.scores(enc)
            times.append(time.perf_counter() - start)
        fixed[str(n)] = times
    cpu = cpu_info()
    return {
        "amx": cpu.amx,
        "refused": cpu.amx_refused,
        "chat": chat,
        "fixed": fixed,
        "scores_sha256": digest.hexdigest(),
    }


def _run_arm(refuse: bool, ns: argparse.Namespace) -> dict[str, Any]:
    args = ["-m", "moderation.bench.amx", "--child", "--messages", str(ns.messages)]
    args += ["--seed", str(ns.seed), "--repeats", str(ns.repeats)]
    cmd = [str(SCRIPT), "python", *args] if refuse else [sys.executable, *args]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False, timeout=900)
    if out.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {out.stderr[-2000:]}")
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    if result["amx"] == refuse or result["refused"] != refuse:
        raise RuntimeError(f"the {'refused' if refuse else 'AMX'} arm ran with amx={result['amx']}")
    return result


def _ms(values: list[float], q: float) -> float:
    return float(np.percentile(values, q) * 1000)


def main(argv: list[str] | None = None) -> int:
    """Alternate the two arms in rounds; print and store the table."""
    p = argparse.ArgumentParser(prog="moderation bench amx", description=__doc__)
    p.add_argument("--messages", type=int, default=600, help="chat messages per round")
    p.add_argument("--repeats", type=int, default=100, help="runs per fixed length a round")
    p.add_argument("--rounds", type=int, default=6)
    p.add_argument("--seed", type=int, default=21)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ns = p.parse_args(argv)
    if ns.child:
        print(json.dumps(_child(ns.messages, ns.seed, ns.repeats)))
        return 0

    from moderation.cpu import cpu_info

    cpu = cpu_info()
    if not cpu.amx:
        print(f"no AMX tiles for this process ({cpu.describe()}): nothing to compare")
        return 2
    if not SCRIPT.is_file():
        print(f"{SCRIPT} is missing: run from a checkout")
        return 2
    runs: dict[str, list[dict[str, Any]]] = {arm: [] for arm in ARMS}
    for r in range(ns.rounds):
        order = (False, True) if r % 2 == 0 else (True, False)
        for refuse in order:
            runs[ARMS[int(refuse)]].append(_run_arm(refuse, ns))
    same = len({run["scores_sha256"] for arm in ARMS for run in runs[arm]}) == 1
    # Per arm, every round's times pooled: "chat", and each fixed length by its name.
    timed = {
        arm: {
            "chat": [t for run in runs[arm] for t in run["chat"]],
            **{str(n): [t for run in runs[arm] for t in run["fixed"][str(n)]] for n in LENGTHS},
        }
        for arm in ARMS
    }
    base = {k: _ms(v, 50) for k, v in timed[ARMS[1]].items()}
    rows: list[list[str]] = []
    results: dict[str, Any] = {}
    for arm in ARMS:
        p50 = {k: _ms(v, 50) for k, v in timed[arm].items()}
        chat_p99 = _ms(timed[arm]["chat"], 99)
        row = [arm, f"{p50['chat']:.3f}", f"{chat_p99:.3f}", f"{base['chat'] / p50['chat']:.2f}"]
        for n in LENGTHS:
            row += [f"{p50[str(n)]:.3f}", f"{base[str(n)] / p50[str(n)]:.2f}"]
        rows.append(row)
        results[arm] = {
            "chat_p50_ms": p50["chat"],
            "chat_p99_ms": chat_p99,
            **{f"tokens_{n}_p50_ms": p50[str(n)] for n in LENGTHS},
        }
    headers = ["int8 GEMMs on", "chat p50 ms", "chat p99 ms", "x VNNI"]
    for n in LENGTHS:
        headers += [f"{n} tokens p50 ms", "x VNNI"]
    table = markdown_table(headers, rows)
    note = (
        f"{ns.messages} held-out chat messages per round (tokenization included) and "
        f"{ns.repeats} runs at each fixed length (model only), 2 threads, spinning off, "
        f"{ns.rounds} rounds of one child process per arm, their order flipped every "
        "round. Scores of the two arms "
        + ("identical bit for bit." if same else "DIFFER (see the JSON).")
    )
    print(table + "\n\n" + note)
    ns.out.mkdir(parents=True, exist_ok=True)
    results["scores_identical"] = same
    (ns.out / "bench-amx.json").write_text(json.dumps(results, indent=2))
    if ns.docs:
        cmd = f"moderation bench amx --messages {ns.messages} --rounds {ns.rounds}"
        write_docs_section(Path(ns.docs), "bench-amx", f"Command: `{cmd}`.\n\n{table}\n\n{note}\n")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
