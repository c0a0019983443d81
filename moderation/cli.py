"""The ``moderation`` command: classify, build or export a model, benchmark."""

from __future__ import annotations

import argparse
import logging
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import orjson

from moderation.errors import InvalidTextError, ModerationError

if TYPE_CHECKING:
    from moderation.config import ClassifierSettings

log = logging.getLogger("moderation")

EXIT_OK = 0
EXIT_SOME_REJECTED = 1
EXIT_USAGE = 2


def _texts(args: list[str]) -> Iterator[str]:
    """Texts from arguments, else one per line of standard input (bytes kept as escapes)."""
    if args:
        yield from args
        return
    for raw in sys.stdin.buffer:
        yield raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape")


def cmd_classify(ns: argparse.Namespace) -> int:
    """Print one JSON object per text: hash, decision, scores, tokens."""
    from moderation.classifier import Classifier, sanitize
    from moderation.config import Source, classifier_settings
    from moderation.policy import Policy
    from moderation.privacy import text_sha256

    settings = classifier_settings(Source())
    classifier = Classifier(settings)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    out = sys.stdout.buffer
    status = EXIT_OK
    for text in _texts(ns.texts):
        row: dict[str, object] = {"text_sha256": text_sha256(text)}
        try:
            result = classifier.classify(text)
        except InvalidTextError as exc:
            row |= {"error": exc.code, "detail": str(exc)}
            status = EXIT_SOME_REJECTED
        else:
            row |= {
                "decision": policy.decide(result.scores),
                "scores": result.scores,
                "tokens": result.tokens,
                "truncated": result.truncated,
                "model": result.model_id,
            }
            if ns.show_text:
                # Bytes that were not UTF-8 came in as lone surrogates: shown as U+FFFD,
                # as the model read them.
                row["text"] = sanitize(text)
        out.write(orjson.dumps(row) + b"\n")
        out.flush()
    return status


def cmd_export(ns: argparse.Namespace) -> int:
    """Export, optimize and quantize a user's DistilBERT checkpoint directory."""
    from moderation.build.export import build

    manifest = build(
        ns.checkpoint, ns.out, name=ns.name or ns.checkpoint.name, max_tokens=ns.max_tokens
    )
    sys.stdout.write(orjson.dumps(manifest, option=orjson.OPT_INDENT_2).decode() + "\n")
    return EXIT_OK


def cmd_build_model(ns: argparse.Namespace) -> int:
    """Convert MiniLM, fine-tune, export, quantize, evaluate and write the model card."""
    from moderation.build.pipeline import build_model
    from moderation.build.train import TrainSettings

    defaults = TrainSettings()
    overrides = {
        "epochs": ns.epochs or defaults.epochs,
        "learning_rate": ns.learning_rate or defaults.learning_rate,
        "freeze_word_embeddings": (
            defaults.freeze_word_embeddings
            if ns.freeze_embeddings is None
            else ns.freeze_embeddings
        ),
    }
    build_model(ns.data, ns.out, work_dir=ns.work, skip_training=ns.skip_training, **overrides)
    return EXIT_OK


def cmd_eval(ns: argparse.Namespace) -> int:
    """Judge the model: validation splits, behaviours, evasions, benign chat."""
    from moderation.classifier import Classifier
    from moderation.config import Source, classifier_settings
    from moderation.evaluation.run import evaluate, markdown, write
    from moderation.policy import Policy

    settings = classifier_settings(Source())
    classifier = Classifier(settings)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    if not ns.data.is_dir():
        raise ModerationError(f"--data {ns.data}: no such folder (the shared data sets)")
    report = evaluate(classifier, policy, ns.data, ns.chat_messages)
    sys.stdout.write(markdown(report))
    if ns.write:
        write(report, settings.model_dir)
        sys.stdout.write(f"wrote {settings.model_dir}/eval.json and its MODEL_CARD.md\n")
    return EXIT_OK


def cmd_worker(ns: argparse.Namespace) -> int:
    """Run the worker until SIGTERM."""
    import asyncio

    from moderation.app import serve

    asyncio.run(serve(embedded=ns.embedded))
    return EXIT_OK


def cmd_demo(ns: argparse.Namespace) -> int:
    """Embedded broker + worker, sample messages in, verdicts and latency out."""
    import asyncio

    from moderation.demo import demo

    return asyncio.run(demo(rounds=ns.rounds))


# `moderation bench SUITE`: the module under moderation.bench whose main() runs it.
BENCH_SUITES = {
    "model": "model",
    "e2e": "e2e",
    "cache": "cache",
    "prometheus": "promagree",
    "replay": "replay",
    "spark": "spark",
    "quant": "quant",
    "client": "client",
    "normalize": "normalize",
}


def cmd_bench(ns: argparse.Namespace) -> int:
    """Run a benchmark suite."""
    from importlib import import_module

    from moderation.cpu import cpu_info

    # Figures compare only within one CPU kind: every run says where it ran.
    print(f"CPU: {cpu_info().describe()}", flush=True)
    module = import_module(f"moderation.bench.{BENCH_SUITES[ns.suite]}")
    return int(module.main(ns.rest))


def cmd_send_api(ns: argparse.Namespace) -> int:
    """Serve POST /messages until SIGTERM."""
    import asyncio

    from moderation.config import Source, client_settings
    from moderation.sendapi import serve

    src = Source()
    settings = client_settings(src)
    if settings.kafka.bootstrap is None and not ns.embedded:
        raise ModerationError("set MODERATION_KAFKA_BOOTSTRAP, or pass --embedded")
    port = ns.port if ns.port is not None else src.integer("API_PORT", 8080, 0, 65535)
    asyncio.run(serve(settings, port, ns.embedded, ns.host))
    return EXIT_OK


def cmd_replay(ns: argparse.Namespace) -> int:
    """Replay, then print a JSON summary."""
    from dataclasses import asdict

    from moderation.config import Source, classifier_settings, kafka_settings
    from moderation.replay.run import Options, replay
    from moderation.replay.sources import Fields, parse_point

    src = Source()
    if ns.engine == "spark":
        return _replay_spark(ns, classifier_settings(src))
    try:
        start, end = parse_point(ns.start), parse_point(ns.end)
    except ValueError as exc:
        raise ModerationError(str(exc)) from None
    opts = Options(
        inputs=ns.inputs,
        output=ns.output,
        fields=Fields(ns.text_field, ns.id_field or None, ns.label_field or None),
        classifier=classifier_settings(src),
        kafka=kafka_settings(src),
        start=start,
        end=end,
        workers=ns.workers,
        batch_size=ns.batch_size,
        rate=ns.rate,
        overwrite=ns.overwrite,
        include_text=ns.include_text,
        checkpoint=ns.checkpoint,
        report=not ns.no_report,
        progress=not ns.no_progress,
    )
    summary = replay(opts)
    body = asdict(summary) | {"rate": round(summary.rate, 1)}
    sys.stdout.buffer.write(orjson.dumps(body) + b"\n")
    return EXIT_OK


def _replay_spark(ns: argparse.Namespace, settings: ClassifierSettings) -> int:
    """`replay --engine spark`: options the native engine alone has are refused by name."""
    from dataclasses import asdict

    from moderation.replay.sources import Fields

    native_only = {
        "--start": ns.start,
        "--end": ns.end,
        "--workers": ns.workers,
        "--rate": ns.rate,
        "--checkpoint": ns.checkpoint,
    }
    given = [flag for flag, value in native_only.items() if value]
    if given:
        raise ModerationError(
            f"{', '.join(given)}: not with --engine spark (Spark sizes its own tasks, retries "
            "failed ones, and reads files, not topics)"
        )
    try:
        from moderation.spark.replay import SparkOptions, replay_spark
    except ImportError as exc:
        raise ModerationError(
            f"--engine spark needs pyspark and pyarrow: pip install 'moderation[spark]' ({exc})"
        ) from None
    opts = SparkOptions(
        inputs=ns.inputs,
        output=ns.output,
        fields=Fields(ns.text_field, ns.id_field or None, ns.label_field or None),
        classifier=settings,
        master=ns.master,
        batch_size=ns.batch_size,
        overwrite=ns.overwrite,
        include_text=ns.include_text,
        report=not ns.no_report,
    )
    summary = replay_spark(opts)
    body = asdict(summary) | {"rate": round(summary.rate, 1)}
    sys.stdout.buffer.write(orjson.dumps(body) + b"\n")
    return EXIT_OK


def parser() -> argparse.ArgumentParser:
    """The command-line grammar."""
    from moderation import __version__

    p = argparse.ArgumentParser(prog="moderation", description=__doc__)
    p.add_argument("-v", "--verbose", action="store_true", help="log at DEBUG level")
    p.add_argument("--version", action="version", version=f"moderation {__version__}")
    sub = p.add_subparsers(dest="command", required=True)

    c = sub.add_parser("classify", help="classify texts given as arguments or on stdin")
    c.add_argument("texts", nargs="*", help="texts; none means one per line of stdin")
    c.add_argument(
        "--show-text",
        action="store_true",
        help="echo the text in the output (off by default: chat text is user data)",
    )
    c.set_defaults(func=cmd_classify)

    e = sub.add_parser("export", help="export+optimize+int8-quantize a DistilBERT checkpoint dir")
    e.add_argument("checkpoint", type=Path)
    e.add_argument("--out", type=Path, required=True)
    e.add_argument("--name", default=None)
    e.add_argument("--max-tokens", type=int, default=128)
    e.set_defaults(func=cmd_export)

    b = sub.add_parser("build-model", help="rebuild the shipped model from packages and data")
    b.add_argument("--data", type=Path, required=True, help="folder with tweeteval/ and davidson/")
    b.add_argument("--out", type=Path, default=Path("models/moderation-minilm-int8"))
    b.add_argument("--work", type=Path, default=Path("build"))
    b.add_argument("--epochs", type=int, default=None, help="default: the TrainSettings value")
    b.add_argument("--learning-rate", type=float, default=None)
    b.add_argument(
        "--freeze-embeddings",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="freeze the word embeddings (default: the TrainSettings value)",
    )
    b.add_argument(
        "--skip-training",
        action="store_true",
        help="reuse the checkpoint already in WORK/train/best",
    )
    b.set_defaults(func=cmd_build_model)

    ev = sub.add_parser("eval", help="judge the model: splits, behaviours, evasions, chat")
    ev.add_argument("--data", type=Path, required=True, help="the shared data folder")
    ev.add_argument("--chat-messages", type=int, default=3000, help="benign chat sample")
    ev.add_argument("--write", action="store_true", help="store eval.json and the card section")
    ev.set_defaults(func=cmd_eval)

    w = sub.add_parser("worker", help="run the moderation worker (Kafka in, verdicts out)")
    w.add_argument(
        "--embedded",
        action="store_true",
        help="start the embedded broker even if MODERATION_KAFKA_BOOTSTRAP is set",
    )
    w.set_defaults(func=cmd_worker)

    d = sub.add_parser("demo", help="start the embedded stack, send sample messages, show verdicts")
    d.add_argument("--rounds", type=int, default=3, help="times the sample set is sent")
    d.set_defaults(func=cmd_demo)

    a = sub.add_parser(
        "send-api", help="example send-message HTTP service using the client library"
    )
    a.add_argument(
        "--embedded",
        action="store_true",
        help="start the embedded broker and a worker in this process (a laptop demo)",
    )
    a.add_argument("--port", type=int, help="HTTP port (default MODERATION_API_PORT or 8080)")
    a.add_argument(
        "--host",
        help="address to bind (default 0.0.0.0; with --embedded, 127.0.0.1: a laptop demo)",
    )
    a.set_defaults(func=cmd_send_api)

    r = sub.add_parser(
        "replay",
        help="re-run historical messages (JSONL, CSV, kafka:TOPIC) into verdicts and a report",
    )
    r.add_argument("inputs", nargs="+", metavar="INPUT", help="file.jsonl, file.csv or kafka:TOPIC")
    r.add_argument("--output", required=True, help="out.jsonl, out.csv or kafka:TOPIC")
    r.add_argument("--text-field", default="text", help="field or column with the text")
    r.add_argument("--id-field", default="id", help="field or column with the id (optional)")
    r.add_argument("--label-field", default="label", help="0/1 or {label: 0/1} truth (optional)")
    r.add_argument("--start", help="topic input from: offset:N, epoch ms or ISO time")
    r.add_argument("--end", help="topic input until (exclusive): offset:N, epoch ms or ISO time")
    r.add_argument("--workers", type=int, default=0, help="scoring processes (0: one per core)")
    r.add_argument(
        "--batch-size",
        type=int,
        default=1,
        help="1 (default) scores exactly as live; >1 batches equal-length messages, "
        "faster but scores then depend on batch neighbours (docs/replay.md)",
    )
    r.add_argument("--rate", type=float, default=0.0, help="at most this many messages/s")
    r.add_argument("--checkpoint", help="checkpoint path (default OUTPUT.checkpoint.json)")
    r.add_argument("--overwrite", action="store_true", help="replace an existing output")
    r.add_argument("--include-text", action="store_true", help="copy texts into the output")
    r.add_argument("--no-report", action="store_true", help="skip the quality report")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    r.add_argument(
        "--engine",
        choices=("native", "spark"),
        default="native",
        help="native (default): processes on this machine; spark: Apache Spark, Parquet out "
        "(pip install 'moderation[spark]'; docs/replay.md)",
    )
    r.add_argument(
        "--master", help="with --engine spark: Spark master, e.g. local[*] (default: Spark's)"
    )
    r.set_defaults(func=cmd_replay)

    bench = sub.add_parser("bench", help="benchmarks: `moderation bench model --help`")
    bench.add_argument("suite", choices=list(BENCH_SUITES))
    bench.add_argument("rest", nargs=argparse.REMAINDER)
    bench.set_defaults(func=cmd_bench)
    return p


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script."""
    ns = parser().parse_args(argv)
    import os

    from moderation.logs import configure

    # JSON for machines (a worker's stderr is collected), text at a terminal.
    default_fmt = "text" if sys.stderr.isatty() else "json"
    fmt = os.environ.get("MODERATION_LOG_FORMAT", default_fmt).strip().lower()
    if fmt not in ("json", "text"):
        print(f"MODERATION_LOG_FORMAT={fmt!r}: expected json or text", file=sys.stderr)
        return EXIT_USAGE
    configure(logging.DEBUG if ns.verbose else logging.INFO, fmt)
    try:
        return int(ns.func(ns))
    except ModerationError as exc:
        log.error("%s", exc)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
