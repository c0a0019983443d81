"""`moderation bench model`: per-message latency of the classifier against its baselines.

Rows, all with the same weights and the same tokenizer (so only the runtime differs):
(a) PyTorch fp32 padded to 128 tokens (Roblox's baseline), (b) PyTorch fp32 with
dynamic shapes, (c) PyTorch dynamic int8 (Roblox's final setup), (d) ONNX Runtime
fp32, plain export, dynamic shapes, (e) ours: fused + int8 ONNX, at 1, 2 and 4
threads, plus the steps in between. Each row is timed in its own blocks: interleaving
runtimes per message lets one's spinning threads tax the next. The blocks run in rounds
(``--rounds``), every row once a round on its share of the messages, the order rotated
between rounds: on a shared machine one block per row, in a fixed order, let drift decide
a comparison (one run timed the same setting 1.47 and 1.65 ms as two rows).
"""

from __future__ import annotations

import argparse
import gc
import json
import logging
import platform
import random
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from moderation.bench.baselines import (
    PADDED_LENGTH,
    TRAINED_CHECKPOINT,
    Tok,
    baseline_weights,
    model_width,
    ort_fn,
    torch_fn,
    wide_model,
)
from moderation.bench.stats import markdown_table, summarize, write_docs_section
from moderation.cpu import cpu_info

if TYPE_CHECKING:
    from moderation.classifier import Classifier

log = logging.getLogger(__name__)


@dataclass
class Row:
    """One measured variant."""

    key: str
    label: str
    threads: int
    stats: dict[str, float]
    seconds: list[float]
    round_p50_ms: list[float] = field(default_factory=list)


def chat_messages(n: int, long_fraction: float, seed: int) -> list[str]:
    """Held-out chitchat utterances, plus long messages (several turns) that hit truncation."""
    from moderation.build.datasets import chitchat_utterances

    pool = chitchat_utterances("test")
    rng = random.Random(seed)
    n_long = int(n * long_fraction)
    msgs = rng.sample(pool, n - n_long)
    for _ in range(n_long):
        start = rng.randrange(len(pool) - 60)
        msgs.append(" ".join(pool[start : start + 60]))
    rng.shuffle(msgs)
    return msgs


def time_block(fn: Callable[[str], Any], texts: list[str], warmup: int) -> list[float]:
    """Warm up, then time ``fn`` on each text in turn."""
    for t in texts[:warmup]:
        fn(t)
    gc.collect()
    gc.disable()
    try:
        out = []
        clock = time.perf_counter
        for t in texts:
            start = clock()
            fn(t)
            out.append(clock() - start)
        return out
    finally:
        gc.enable()


@dataclass
class Variant:
    """A row to be timed: ``fn`` tokenizes and scores one message."""

    key: str
    label: str
    threads: int
    fn: Callable[[str], Any]
    n: int


def time_rounds(
    variants: list[Variant], texts: list[str], warmup: int, rounds: int
) -> dict[str, list[list[float]]]:
    """Each variant's seconds per message, a list per round: in round ``r`` every
    variant runs on every ``rounds``-th of its first ``n`` texts from the ``r``-th, in its
    own block (warmed up first), the order rotated by a share of the rows each round so
    that no row always runs first or last."""
    seconds: dict[str, list[list[float]]] = {v.key: [] for v in variants}
    for r in range(rounds):
        shift = r * len(variants) // rounds
        for v in variants[shift:] + variants[:shift]:
            log.info("timing %s, round %d of %d (%d threads)", v.key, r + 1, rounds, v.threads)
            seconds[v.key].append(time_block(v.fn, texts[: v.n][r::rounds], warmup))
    return seconds


def row_of(v: Variant, per_round: list[list[float]]) -> Row:
    """The variant's row: statistics over all its rounds, and each round's p50."""
    pooled = [x for block in per_round for x in block]
    p50s = [float(np.percentile(block, 50) * 1e3) for block in per_round]
    return Row(v.key, v.label, v.threads, summarize(pooled), pooled, p50s)


def measure_family(
    name: str,
    checkpoint: Path,
    onnx_dir: Path,
    fp32_plain: Path,
    texts: list[str],
    torch_rows: bool,
    base_threads: int,
    warmup: int,
    rounds: int,
    screen_dir: Path | None = None,
) -> list[Row]:
    """Every variant of one model family, each in its own blocks, in ``rounds`` rounds;
    with ``screen_dir``, the model with that screen in front too (moderation/screen.py)."""
    import torch
    from transformers import DistilBertForSequenceClassification

    from moderation.build.export import optimize
    from moderation.build.quantize import quantize

    tok = Tok(onnx_dir, PADDED_LENGTH)
    variants: list[Variant] = []

    def add(key: str, label: str, threads: int, fn: Callable[[str], Any], n: int) -> None:
        variants.append(Variant(key, label, threads, fn, n))

    torch.set_num_threads(base_threads)
    model: Any = DistilBertForSequenceClassification.from_pretrained(str(checkpoint))
    model.eval()
    n_slow = max(100, len(texts) // 4)
    add("a", "PyTorch fp32, padded to 128", base_threads, torch_fn(model, tok, True), n_slow)
    if torch_rows:
        add(
            "b",
            "PyTorch fp32, dynamic shape",
            base_threads,
            torch_fn(model, tok, False),
            len(texts),
        )
        quantize_dynamic: Any = torch.ao.quantization.quantize_dynamic  # unannotated in torch
        qmodel = quantize_dynamic(model, {torch.nn.Linear}, dtype=torch.qint8)
        add(
            "c",
            "PyTorch dynamic int8, dynamic shape",
            base_threads,
            torch_fn(qmodel, tok, False),
            len(texts),
        )
    add(
        "d",
        "ORT fp32, plain export, dynamic shape",
        base_threads,
        ort_fn(fp32_plain, tok, base_threads, True, ours=False),
        len(texts),
    )
    with tempfile.TemporaryDirectory() as tmp:
        if torch_rows:
            unfused = Path(tmp) / "int8-unfused.onnx"
            quantize(fp32_plain, unfused)
            add(
                "d8",
                "ORT int8, no fusions",
                base_threads,
                ort_fn(unfused, tok, base_threads, True, ours=False),
                len(texts),
            )
            every_row_fp32 = Path(tmp) / "every-row-fp32.onnx"
            every_row = Path(tmp) / "every-row.onnx"
            optimize(fp32_plain, every_row_fp32, 12, model_width(fp32_plain))
            quantize(every_row_fp32, every_row)
            add(
                "e2-rows",
                "ours, but the last block on every row (before the classifier-row cut)",
                2,
                ort_fn(every_row, tok, 2, True),
                len(texts),
            )
            recipe_fp32, recipe = Path(tmp) / "recipe-fp32.onnx", Path(tmp) / "recipe.onnx"
            optimize(fp32_plain, recipe_fp32, 12, model_width(fp32_plain), skip_layer_norm=True)
            quantize(recipe_fp32, recipe)
            add(
                "r",
                "the stock recipe: all fusions incl. SkipLayerNorm, int8",
                base_threads,
                ort_fn(recipe, tok, base_threads, True, ours=False),
                len(texts),
            )
        for threads in (1, 2, 4):
            label = f"ours: fused int8, {threads} thread{'s' if threads > 1 else ''}, spinning"
            add(
                f"e{threads}",
                label,
                threads,
                ort_fn(onnx_dir / "model.onnx", tok, threads, True),
                len(texts),
            )
        add(
            "e2-nospin",
            "ours: 2 threads for every length, spinning off (the worker's setting until "
            "2026-11-25)",
            2,
            ort_fn(onnx_dir / "model.onnx", tok, 2, False),
            len(texts),
        )
        shipped, limit = split_fn(onnx_dir / "model.onnx", tok, 2)
        add(
            "e-split",
            f"ours as shipped: {threads_by_length(limit)} (timed at load), spinning off",
            2,
            shipped,
            len(texts),
        )
        if screen_dir is not None:
            from moderation.config.model import SCREENED_KINDS

            pair = screened_fn(onnx_dir, screen_dir)
            add(
                "e-screen",
                f"ours as shipped on {' and '.join(SCREENED_KINDS)}: the "
                f"{screen_blocks(pair)}-block screen in "
                f"front (ratio {pair.screen.ratio if pair.screen else '-'}; "
                f"{threads_by_length(pair.screen_one_thread_up_to)}, timed at load for it), "
                f"the model behind it ({threads_by_length(pair.one_thread_up_to)})",
                2,
                lambda text: pair.scores(pair.encode(text)),
                len(texts),
            )
            add(
                "e-screen-lib",
                "(e-screen), but every message tokenized by the tokenizers library (ASCII "
                "too, as until 2026-12-06)",
                2,
                lambda text: pair.scores(pair.encode(text, python_ascii=False)),
                len(texts),
            )
            if pair.threat_reads_further:
                add(
                    "e-screen-written",
                    "(e-screen), but the threat head reads every message as written, never "
                    "a second time past a final full stop, mentions, chat words, emoji or final "
                    "marks, nor sentence by sentence or line by line (as until 2026-12-06)",
                    2,
                    lambda text: pair.scores(pair.encode(text), second_reading=False),
                    len(texts),
                )
        log.info("%s: %d rows, %d rounds", name, len(variants), rounds)
        seconds = time_rounds(variants, texts, warmup, rounds)
    return [row_of(v, seconds[v.key]) for v in variants]


def threads_by_length(one_thread_up_to: int) -> str:
    """How the shipped setting splits messages between its sessions, in words."""
    if one_thread_up_to >= PADDED_LENGTH:
        return "1 thread at every length"
    if one_thread_up_to:
        return f"1 thread up to {one_thread_up_to} tokens, 2 above"
    return "2 threads at every length"


def split_fn(path: Path, tok: Tok, threads: int) -> tuple[Callable[[str], Any], int]:
    """Tokenize and run as the worker does: a one-thread session for messages up to the
    length timed at load (``Classifier``), the ``threads`` session above; spinning off."""
    from moderation.classifier import DISABLED_OPTIMIZERS, make_session, timed_one_thread_limit

    one = make_session(path, 1, False, DISABLED_OPTIMIZERS)
    full = make_session(path, threads, False, DISABLED_OPTIMIZERS)
    limit, _ = timed_one_thread_limit(one, full, PADDED_LENGTH)

    def run(text: str) -> Any:
        ids = tok.ids(text)
        sess = one if ids.shape[1] <= limit else full
        return sess.run(["logits"], {"input_ids": ids, "attention_mask": np.ones_like(ids)})

    return run, limit


def screen_blocks(pair: Classifier) -> str:
    """How many blocks the pair's screen has, from its manifest ("?" without one)."""
    return str(pair.screen.manifest.get("layers", "?")) if pair.screen else "?"


def screened_fn(model_dir: Path, screen_dir: Path) -> Classifier:
    """The model with the screen in front, as the worker loads it (each file on one
    thread up to its own length timed at load), tokenizing as the other rows do (no
    normalizer)."""
    from moderation.classifier import Classifier
    from moderation.config import ClassifierSettings

    return Classifier(
        ClassifierSettings(model_dir=model_dir, threads=2, screen_dir=screen_dir, normalize=False)
    )


BY_LENGTH = (8, 16, 32, 64, 128)


def by_length(model_dir: Path, fp32_plain: Path, threads: int) -> tuple[str, dict[str, Any], int]:
    """Model time (no tokenizing) at fixed lengths: ours on ``threads`` threads and on
    one, against the plain fp32 export at ``threads``, spinning off, alternating blocks.
    *As shipped* is the one-thread figure up to the length the classifier's load-time
    timing picks for these sessions (returned third)."""
    from moderation.classifier import (
        DISABLED_OPTIMIZERS,
        Encoded,
        make_session,
        timed_one_thread_limit,
    )

    ours = model_dir / "model.onnx"
    sessions = {
        "ours": make_session(ours, threads, False, DISABLED_OPTIMIZERS),
        "ours-1": make_session(ours, 1, False, DISABLED_OPTIMIZERS),
        "fp32": make_session(fp32_plain, threads, False, ()),
    }
    one_thread_up_to, _ = timed_one_thread_limit(sessions["ours-1"], sessions["ours"], 128)
    rng = np.random.default_rng(3)
    rows, data = [], {}
    keys = list(sessions)
    for n in BY_LENGTH:
        ids = rng.integers(1000, 20000, n).astype(np.int64)
        ids[0], ids[-1] = 101, 102  # [CLS] ... [SEP]
        feed = Encoded(ids, False).feed()
        reps = 60 if n <= 32 else 25
        times: dict[str, list[float]] = {k: [] for k in sessions}
        # Alternate blocks, so drift on a shared machine hits all; the order rotated
        # each round, so that no session always runs first.
        for r in range(3):
            for key in keys[r:] + keys[:r]:
                sess = sessions[key]
                run = lambda _t, s=sess, f=feed: s.run(None, f)  # noqa: E731
                times[key] += time_block(run, ["x"] * reps, 5)
        p50 = {k: float(np.percentile(v, 50) * 1e3) for k, v in times.items()}
        p50["shipped"] = p50["ours-1" if n <= one_thread_up_to else "ours"]
        data[str(n)] = p50
        rows.append(
            [
                n,
                f"{p50['shipped']:.2f}",
                f"{p50['ours']:.2f}",
                f"{p50['ours-1']:.2f}",
                f"{p50['fp32']:.2f}",
                f"{p50['fp32'] / p50['shipped']:.2f}x",
            ]
        )
    headers = [
        "tokens",
        "ours as shipped p50 ms",
        f"ours, {threads} threads",
        "ours, 1 thread",
        f"ORT fp32 plain, {threads} threads",
        "as shipped faster by",
    ]
    return markdown_table(headers, rows), data, one_thread_up_to


def ratio_rows(rows: list[Row]) -> list[list[str]]:
    """Table rows with each variant's p50 ratio to (a) and to (d)."""
    by = {r.key: r for r in rows}
    a, d = by["a"].stats["p50_ms"], by["d"].stats["p50_ms"]
    out = []
    for r in rows:
        s = r.stats
        out.append(
            [
                f"({r.key})",
                r.label,
                str(r.threads),
                f"{s['p50_ms']:.2f}",
                " / ".join(f"{x:.2f}" for x in r.round_p50_ms) or "-",
                f"{s['p90_ms']:.2f}",
                f"{s['p99_ms']:.2f}",
                f"{s['throughput_per_s']:.0f}",
                f"{a / s['p50_ms']:.1f}x",
                f"{d / s['p50_ms']:.2f}x",
            ]
        )
    return out


HEADERS = [
    "row",
    "variant",
    "threads",
    "p50 ms",
    "p50 by round ms",
    "p90 ms",
    "p99 ms",
    "msg/s (1 stream)",
    "p50 vs (a)",
    "p50 vs (d)",
]


def plot(families: dict[str, list[Row]], path: Path) -> None:
    """Latency distributions per variant, log scale, one panel per model family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(families), figsize=(7 * len(families), 5), squeeze=False)
    for ax, (name, rows) in zip(axes[0], families.items(), strict=True):
        data = [np.asarray(r.seconds) * 1e3 for r in rows]
        ax.boxplot(data, vert=False, whis=(1, 99), showfliers=False)
        ax.set_yticks(range(1, len(rows) + 1), [f"({r.key}) {r.label}" for r in rows], fontsize=7)
        ax.set_xscale("log")
        ax.set_xlabel("ms per message, tokenize + infer (box: p25-p75, whiskers: p1-p99)")
        ax.set_title(name)
        ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark; print tables; write JSON, PNG and docs/benchmarks.md."""
    p = argparse.ArgumentParser(prog="moderation bench model", description=__doc__)
    p.add_argument(
        "--checkpoint",
        type=Path,
        default=None,
        help="fp32 checkpoint of the shipped model (from `moderation build-model`: "
        f"{TRAINED_CHECKPOINT}); without one, the baseline rows use the base weights",
    )
    p.add_argument("--fp32-onnx", type=Path, default=None, help="its plain fp32 export (row d)")
    p.add_argument("--model-dir", type=Path, default=None)
    p.add_argument("--messages", type=int, default=800)
    p.add_argument("--long-fraction", type=float, default=0.05)
    p.add_argument("--threads", type=int, default=2, help="threads of the baseline rows")
    p.add_argument("--out", type=Path, default=Path("bench-results"))
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to leave the docs alone")
    p.add_argument("--skip-wide", action="store_true")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument(
        "--rounds", type=int, default=3, help="rounds of one block per row, the order rotated"
    )
    p.add_argument(
        "--no-screen",
        action="store_true",
        help="leave out the row of the model with the shipped screen in front",
    )
    ns = p.parse_args(argv)
    from moderation.config import default_model_dir
    from moderation.config.model import DEFAULT_SCREEN_NAME

    model_dir = ns.model_dir or default_model_dir()
    ns.out.mkdir(parents=True, exist_ok=True)
    checkpoint, fp32_onnx, weights_note = baseline_weights(ns.checkpoint, ns.fp32_onnx, ns.out)
    texts = chat_messages(ns.messages, ns.long_fraction, ns.seed)
    tok = Tok(model_dir, 128)
    lengths = [tok.ids(t).shape[1] for t in texts]
    families = {
        "shipped model (width 384)": measure_family(
            "shipped",
            checkpoint,
            model_dir,
            fp32_onnx,
            texts,
            True,
            ns.threads,
            30,
            ns.rounds,
            screen_dir=None if ns.no_screen else default_model_dir(DEFAULT_SCREEN_NAME),
        )
    }
    if not ns.skip_wide:
        ckpt, wide_dir, wide_plain = wide_model(ns.out / "wide")
        wide_texts = texts[: max(200, ns.messages // 2)]
        families["DistilBERT-base size (width 768, random weights)"] = measure_family(
            "wide", ckpt, wide_dir, wide_plain, wide_texts, False, ns.threads, 20, ns.rounds
        )
        sixteen = ["word " * 14] * 300  # 14 words + [CLS] + [SEP] = 16 tokens
        wide16 = time_block(
            ort_fn(wide_dir / "model.onnx", Tok(wide_dir, 128), 2, True), sixteen, 30
        )
        families["DistilBERT-base size (width 768, random weights)"].append(
            Row(
                "e2-16tok",
                "ours, 2 threads, spinning, exactly 16 tokens",
                2,
                summarize(wide16),
                wide16,
            )
        )
    info = cpu_info()
    env = {
        "cpu": info.model_name,
        "usable_cores": info.usable_cores,
        "avx512": info.avx512,
        "vnni": info.vnni,
        "python": platform.python_version(),
        "messages": len(texts),
        "tokens_p50": float(np.percentile(lengths, 50)),
        "tokens_p99": float(np.percentile(lengths, 99)),
        "truncated_share": float(np.mean([n >= 128 for n in lengths])),
    }
    sections = []
    for name, rows in families.items():
        table = markdown_table(HEADERS, ratio_rows(rows))
        print(f"\n## {name}\n\n{table}\n")
        sections.append(f"### {name}\n\n{table}")
    length_table, length_data, limit = by_length(model_dir, fp32_onnx, 2)
    print(f"\n## by length (model only, spinning off)\n\n{length_table}\n")
    sections.append(
        "### By length (model only, no tokenizing; spinning off; as shipped: "
        f"{threads_by_length(limit)}; alternating blocks)\n\n{length_table}"
    )
    env["by_length_p50_ms"] = length_data
    result = {
        "env": env,
        "families": {
            name: [
                {
                    "key": r.key,
                    "label": r.label,
                    "threads": r.threads,
                    **r.stats,
                    "round_p50_ms": r.round_p50_ms,
                }
                for r in rows
            ]
            for name, rows in families.items()
        },
    }
    (ns.out / "bench-model.json").write_text(json.dumps(result, indent=2))
    plot(families, ns.out / "bench-model.png")
    print(f"wrote {ns.out / 'bench-model.json'} and {ns.out / 'bench-model.png'}")
    body = (
        f"Command: `moderation bench model`. CPU: {info.describe()}. {weights_note} "
        f"{env['messages']} held-out chitchat messages, "
        f"{100 * ns.long_fraction:.0f}% of them long pastes that hit the 128-token truncation "
        f"(tokens p50 {env['tokens_p50']:.0f}, p99 {env['tokens_p99']:.0f}). Latency is "
        f"tokenize + infer per message, single stream; all rows in one run, in {ns.rounds} "
        f"rounds of one block per row, the order rotated between rounds; rows (a)-(d) at "
        f"{ns.threads} threads.\n\n"
        + "\n\n".join(sections)
        + "\n\n![latency distributions](bench-model.png)\n"
    )
    if ns.docs:
        write_docs_section(Path(ns.docs), "bench-model", body, ns.out / "bench-model.png")
    return 0
