"""`moderation bench quant`: which int8 setting to ship, measured on this CPU.

ONNX Runtime's quantization guide warns that on CPUs without VNNI the u8s8
multiply-add (VPMADDUBSW) can saturate, and suggests reduce_range, U8U8 or per-channel
weights; static settings calibrate activation scales on training messages, and
fp32-tail ones keep the one-row tail in fp32. Each setting in ``QUANT_SETTINGS`` is
applied to the same fp32 graph (the build's ``fp32-fused-cls-row.onnx``), then scored
on every validation split through the shipped path (batch of one, no padding);
thresholds are chosen per setting by the build's own rule on validation data;
macro-F1 is compared with the fp32 checkpoint's at the same thresholds, as the model
card does. Speed: p50 per chat message (tokenization included, two threads, the
worker's session), the settings timed in interleaved rounds so that machine drift
falls on all alike. Validation data only: no test split takes part in the choice.
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from moderation.bench.stats import markdown_table, write_docs_section
from moderation.build import datasets
from moderation.build.evaluate import (
    SPLIT_LABEL,
    SplitScores,
    choose_thresholds,
    fp32_scores,
    int8_scores,
    split_metrics,
)
from moderation.build.export import MANIFEST_FILE
from moderation.build.quantize import QUANT_SETTINGS, Feed, quantize, setting
from moderation.build.train import TrainSettings
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, default_model_dir

# Static settings calibrate their activation scales on this many training messages.
CALIBRATION_MESSAGES = 400


def calibration_feeds(data: Path, shipped: Path, n: int, seed: int) -> list[Feed]:
    """Model inputs for ``n`` training messages, tokenized as the worker does."""
    ts = TrainSettings()
    pool = datasets.training_set(data, ts.chitchat_train, seed)
    rng = np.random.default_rng(seed)
    picked = [pool[i].text for i in rng.choice(len(pool), size=min(n, len(pool)), replace=False)]
    tok = Classifier(ClassifierSettings(model_dir=shipped, threads=1))
    return [tok.encode(text).feed() for text in picked]


def _model_dir(shipped: Path, fused: Path, name: str, root: Path, calibration: list[Feed]) -> Path:
    """The shipped model's directory with model.onnx re-quantized by the setting
    ``name`` (dynamic settings ignore ``calibration``)."""
    out = root / name
    shutil.copytree(shipped, out)
    quantize(fused, out / "model.onnx", name, calibration)
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    manifest["id"] = f"{manifest['name']}@{name}"
    (out / MANIFEST_FILE).write_text(json.dumps(manifest))
    return out


def _p50_ms(classifiers: dict[str, Classifier], texts: list[str], rounds: int) -> dict[str, float]:
    """Median ms per message, settings interleaved round by round."""
    times: dict[str, list[float]] = {k: [] for k in classifiers}
    for c in classifiers.values():
        for t in texts[:100]:
            c.scores(c.encode(t))
    clock = time.perf_counter
    for r in range(rounds):
        chunk = texts[r::rounds]
        for name, c in classifiers.items():
            for t in chunk:
                start = clock()
                c.scores(c.encode(t))
                times[name].append(clock() - start)
    return {k: float(np.median(v)) * 1000 for k, v in times.items()}


def main(argv: list[str] | None = None) -> int:
    """Quantize, score, print the table, write JSON and the docs section."""
    p = argparse.ArgumentParser(prog="moderation bench quant", description=__doc__)
    p.add_argument("--checkpoint", type=Path, required=True, help="the fp32 fine-tuned checkpoint")
    p.add_argument("--fused", type=Path, required=True, help="the build's fp32-fused-cls-row.onnx")
    p.add_argument("--data", type=Path, required=True, help="the shared data folder")
    p.add_argument("--model-dir", type=Path, default=None, help="default: the shipped model")
    p.add_argument("--settings", nargs="*", default=list(QUANT_SETTINGS))
    p.add_argument("--speed-messages", type=int, default=3000)
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    ns = p.parse_args(argv)
    # An unknown name is refused (QuantizeError lists the known ones) before any work.
    chosen = [setting(key) for key in ns.settings]
    ns.out.mkdir(parents=True, exist_ok=True)
    shipped = ns.model_dir or default_model_dir()
    ts = TrainSettings()
    splits = datasets.validation_sets(ns.data, ts.chitchat_val, ts.seed)
    calibration = (
        calibration_feeds(ns.data, shipped, CALIBRATION_MESSAGES, ts.seed)
        if any(s.static for s in chosen)
        else []
    )
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {s: _model_dir(shipped, ns.fused, s, Path(tmp), calibration) for s in ns.settings}
        classifiers = {
            s: Classifier(ClassifierSettings(model_dir=d, threads=2)) for s, d in dirs.items()
        }
        first = next(iter(classifiers.values()))
        labels = list(first.labels)
        fp32 = {
            name: fp32_scores(ns.checkpoint, first, [e.text for e in ex])
            for name, ex in splits.items()
        }
        results = {}
        for key, c in classifiers.items():
            scored = {
                name: SplitScores(ex, fp32[name], int8_scores(c, [e.text for e in ex]))
                for name, ex in splits.items()
            }
            thresholds = choose_thresholds(scored, labels)
            results[key] = split_metrics(scored, thresholds, labels)
        from moderation.bench.model import chat_messages

        speed = _p50_ms(classifiers, chat_messages(ns.speed_messages, 0.0, 21), rounds=10)
    names = [n for n in SPLIT_LABEL if n in splits]
    base = ns.settings[0]
    rows = []
    for key in ns.settings:
        m = results[key]
        gaps = [100 * (m[n]["int8"]["macro_f1"] - m[n]["fp32"]["macro_f1"]) for n in names]
        rows.append(
            [key]
            + [
                f"{m[n]['int8']['macro_f1']:.4f} ({g:+.1f})"
                for n, g in zip(names, gaps, strict=True)
            ]
            + [f"{min(gaps):+.1f}", f"{speed[key]:.2f}", f"{speed[key] / speed[base]:.2f}"]
        )
    headers = ["setting", *names, "worst int8 - fp32 (points)", "p50 ms", f"x {base}"]
    table = markdown_table(headers, rows)
    note = (
        "Cells: int8 macro-F1 on the validation split (int8 minus fp32, points, at the "
        "setting's own thresholds). Target: every split within 0.5 points of fp32."
    )
    print(table + "\n\n" + note)
    (ns.out / "bench-quant.json").write_text(
        json.dumps({"metrics": results, "p50_ms": speed}, indent=2)
    )
    if ns.docs:
        cmd = (
            "moderation bench quant --checkpoint BUILD/train/best "
            "--fused BUILD/onnx/fp32-fused-cls-row.onnx --data ../shared/data"
        )
        write_docs_section(
            Path(ns.docs), "bench-quant", f"Command: `{cmd}`.\n\n{table}\n\n{note}\n"
        )
    return 0
