"""What each `moderation` subcommand does; `moderation.cli` parses the arguments."""

from __future__ import annotations

import argparse
import asyncio
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING

import orjson

from moderation.errors import ModerationError

if TYPE_CHECKING:
    from moderation.config import ClassifierSettings

EXIT_OK = 0
EXIT_SOME_REJECTED = 1
# `screen-ratio`: the configured screen ratio loses more of the model's nudges than allowed.
EXIT_RATIO_FAILS = 1
EXIT_USAGE = 2


def _texts(args: list[str]) -> Iterator[str]:
    """Texts from arguments, else one per line of standard input (bytes kept as escapes)."""
    if args:
        yield from args
        return
    for raw in sys.stdin.buffer:
        yield raw.rstrip(b"\r\n").decode("utf-8", "surrogateescape")


def cmd_classify(ns: argparse.Namespace) -> int:
    """Print one JSON object per text: hash, decision, scores, tokens.

    Each text goes through the worker's own decision (``Moderator.decide``: the same
    engine, policy and fallback rules), with no cache and no deadline to speak of.
    """
    from moderation.classifier import Classifier, sanitize
    from moderation.config import DecisionSettings, Source, classifier_settings
    from moderation.moderator import Moderator
    from moderation.policy import Policy
    from moderation.privacy import text_sha256
    from moderation.schema import MAX_BUDGET_MS, ChatMessage

    settings = classifier_settings(Source())
    classifier = Classifier(settings)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    moderator = Moderator(
        DecisionSettings(budget_ms=MAX_BUDGET_MS, cut_to_fit=False), classifier, policy
    )
    out = sys.stdout.buffer

    async def run() -> int:
        status = EXIT_OK
        await moderator.start()
        try:
            for i, text in enumerate(_texts(ns.texts)):
                outcome = await moderator.decide(ChatMessage(id=str(i), text=text))
                row: dict[str, object] = {"text_sha256": text_sha256(text)}
                v, problem = outcome.verdict, outcome.problem
                if problem is not None or v is None or v.reason != "model":
                    row |= {
                        "error": problem.kind if problem else (v.reason if v else "error"),
                        "detail": problem.detail if problem else "no verdict from the model",
                    }
                    status = EXIT_SOME_REJECTED
                else:
                    row |= {
                        "decision": v.decision,
                        "scores": v.scores,
                        "tokens": v.tokens,
                        "truncated": v.truncated is not None,
                        "model": v.model,
                    }
                    if ns.show_text:
                        # Bytes that were not UTF-8 came in as lone surrogates: shown as
                        # U+FFFD, as the model read them.
                        row["text"] = sanitize(text)
                out.write(orjson.dumps(row) + b"\n")
                out.flush()
        finally:
            await moderator.stop()
        return status

    return asyncio.run(run())


def cmd_export(ns: argparse.Namespace) -> int:
    """Export, optimize and quantize a user's DistilBERT checkpoint directory."""
    from moderation.build.export import build

    manifest = build(
        ns.checkpoint, ns.out, name=ns.name or ns.checkpoint.name, max_tokens=ns.max_tokens
    )
    sys.stdout.write(orjson.dumps(manifest, option=orjson.OPT_INDENT_2).decode() + "\n")
    return EXIT_OK


def cmd_recover_checkpoint(ns: argparse.Namespace) -> int:
    """Write the fp32 checkpoint a built model's int8 graph was quantized from (up to
    the rounding); print where, from which model."""
    from moderation.build.recover import recover_checkpoint

    model = recover_checkpoint(ns.model, ns.out)
    sys.stdout.write(f"{ns.out}: recovered {model.config.recovered_from}\n")
    return EXIT_OK


# The build-model flags named as the TrainSettings fields they set.
_BUILD_SETTING_FLAGS = (
    "epochs",
    "seed",
    "learning_rate",
    "layer_lr_decay",
    "linear_probe_epochs",
    "dropout",
    "period_toggle",
    "period_toggle_sources",
    "typo_copies",
    "drop_leading_mentions",
    "space_glued_symbols",
    "insert_mentions",
    "mention_sources",
    "mention_placeholder",
    "offensive_repeat",
    "template_repeat",
    "keep",
    "pooling",
    "distil_from",
    "student_blocks",
    "distil_weight",
    "distil_temperature",
    "distil_hidden",
    "distil_transfer",
    "distil_skip_sources",
    "keep_start_share",
    "ema_decay",
)


def cmd_build_model(ns: argparse.Namespace) -> int:
    """Convert MiniLM, fine-tune, export, quantize, evaluate and write the model card."""
    from moderation.build.quantize import SHIPPED_QUANT, setting

    if ns.quant is not None and setting(ns.quant).static:
        # Refused before hours of training: measured slower and no more faithful on
        # AVX2 (docs/benchmarks.md, bench quant), so the build has no calibration step.
        raise ModerationError(f"--quant {ns.quant}: static settings are for bench quant only")
    if ns.soup_seeds and ns.seed is not None:
        raise ModerationError("--seed and --soup-seeds both set the seed: give one")
    from moderation.build.pipeline import build_model
    from moderation.build.refit import REFIT_LABELS
    from moderation.build.train import TRAINING_SET_FLAGS, TrainSettings

    defaults = TrainSettings()
    for scope, share in (
        ("--period-toggle-sources", "period_toggle"),
        ("--mention-sources", "insert_mentions"),
        ("--mention-placeholder", "insert_mentions"),
    ):
        if getattr(ns, scope[2:].replace("-", "_")) is not None and not getattr(ns, share):
            # A scope without a share would do nothing; say so rather than build hours.
            raise ModerationError(f"{scope} without --{share.replace('_', '-')}: give a share")
    # Each TrainSettings field a flag sets, by the flag's name ("--freeze-embeddings"
    # sets freeze_word_embeddings); a flag not given keeps the field's default, and a
    # value no build can use is refused by TrainSettings itself, before any work.
    flag_of = {
        **{name: name for name in (*_BUILD_SETTING_FLAGS, *TRAINING_SET_FLAGS)},
        "freeze_word_embeddings": "freeze_embeddings",
    }
    overrides = {
        field: getattr(defaults, field) if getattr(ns, flag) is None else getattr(ns, flag)
        for field, flag in flag_of.items()
    }
    build_model(
        ns.data,
        ns.out,
        work_dir=ns.work,
        skip_training=ns.skip_training,
        quant=ns.quant or SHIPPED_QUANT,
        soup=ns.soup,
        seeds=tuple(ns.soup_seeds or ()),
        refit=() if ns.refit_heads is None else tuple(ns.refit_heads or REFIT_LABELS),
        threat_threshold_on=ns.threat_threshold_on,
        **overrides,
    )
    return EXIT_OK


def cmd_refit_heads(ns: argparse.Namespace) -> int:
    """Refit a built model's classifier rows on its own int8 features, in place."""
    from moderation.build.refit import refit_in_place

    manifest = refit_in_place(
        ns.model,
        ns.data,
        tuple(ns.labels),
        ns.threat_corpus,
        tuple(ns.insult_negatives),
        ns.typo_copies,
        ns.praise_frames,
        ns.denial_frames,
    )
    sys.stdout.write(
        orjson.dumps(
            {k: manifest[k] for k in ("id", "thresholds", "head_refit")},
            option=orjson.OPT_INDENT_2,
        ).decode()
        + "\n"
    )
    return EXIT_OK


def cmd_eval(ns: argparse.Namespace) -> int:
    """Judge the model: validation splits, behaviours, evasions, benign chat."""
    from moderation.classifier import Classifier
    from moderation.config import Source, classifier_settings
    from moderation.cpu import cpu_info
    from moderation.evaluation.run import (
        PICKING_SPLITS,
        evaluate,
        markdown,
        reports,
        rescored,
        split_lines,
        splits,
        write,
    )
    from moderation.policy import Policy

    if ns.validation_only and (ns.only or ns.write):
        raise ModerationError(
            "eval --validation-only prints the splits a build may be picked by and stores "
            "nothing: give it without --only and --write"
        )
    if ns.validation_only and ns.data is None:
        raise ModerationError("eval --validation-only needs --data (the shared data folder)")
    if ns.only != "behaviour" and ns.data is None:
        raise ModerationError(
            "eval needs --data (the shared data folder), or --only behaviour to score the "
            "suite again into a stored report"
        )
    if ns.data is not None and not ns.data.is_dir():
        raise ModerationError(f"--data {ns.data}: no such folder (the shared data sets)")
    settings = classifier_settings(Source())
    classifier = Classifier(settings)
    policy = Policy.for_model(
        classifier.labels, classifier.manifest["thresholds"], settings.thresholds
    )
    if ns.validation_only:
        rows = splits(classifier, policy, ns.data, PICKING_SPLITS)
        sys.stdout.write(
            f"{classifier.model_id} (CPU kind {cpu_info().kind}), thresholds "
            f"{dict(policy.thresholds)}\n\n" + "\n".join(split_lines(rows)) + "\n"
        )
        return EXIT_OK
    # With a screen in front, the pair's reports are kept beside the screen (the model's
    # own stay beside the model, for `moderation eval-diff` between the two).
    report_dir = settings.screen_dir or settings.model_dir
    if ns.only is not None:
        kind = cpu_info().kind
        stored = reports(report_dir).get(kind)
        if stored is None:
            raise ModerationError(
                f"eval --only {ns.only}: no eval-{kind}.json beside the model "
                "to update: run the whole `moderation eval --write` first"
            )
        report = rescored(stored, classifier, policy, ns.only, ns.data)
    else:
        report = evaluate(classifier, policy, ns.data, ns.chat_messages)
    sys.stdout.write(markdown(report))
    if ns.write:
        path = write(report, report_dir)
        sys.stdout.write(f"wrote {path} and its section of MODEL_CARD.md\n")
    return EXIT_OK


def cmd_eval_diff(ns: argparse.Namespace) -> int:
    """Two models' stored eval reports of one CPU kind, row by row, with the change."""
    from moderation.cpu import cpu_info
    from moderation.evaluation.compare import diff_table, load

    kind = ns.kind or cpu_info().kind
    sys.stdout.write(
        diff_table(load(ns.base, kind), load(ns.candidate, kind), changed_only=ns.changed)
    )
    return EXIT_OK


def cmd_screen_ratio(ns: argparse.Namespace) -> int:
    """Which ratio the screen may answer alone at, on the validation splits; exit 1 when
    the configured ratio does not hold."""
    from dataclasses import replace

    from moderation.classifier import Classifier
    from moderation.config import Source, classifier_settings, default_model_dir
    from moderation.config.model import DEFAULT_SCREEN_NAME
    from moderation.cpu import cpu_info
    from moderation.evaluation.screen_ratio import (
        RATIOS,
        chosen,
        measure,
        table,
        validation_texts,
    )
    from moderation.policy import Policy

    if not ns.data.is_dir():
        raise ModerationError(f"--data {ns.data}: no such folder (the shared data sets)")
    if ns.chat_messages is not None and ns.chat_messages < 1:
        raise ModerationError(f"--chat-messages {ns.chat_messages}: give 1 or more")
    settings = classifier_settings(Source())
    screen_dir = ns.screen or settings.screen_dir or default_model_dir(DEFAULT_SCREEN_NAME)
    if not screen_dir.is_dir():
        raise ModerationError(f"{screen_dir}: no such folder (a screen's model folder)")
    alone = replace(settings, screen_dir=None, shadow_model_dir=None)
    model = Classifier(alone)
    screen = Classifier(replace(alone, model_dir=screen_dir, thresholds={}))
    policy = Policy.for_model(model.labels, model.manifest["thresholds"], settings.thresholds)
    labelled, chat = validation_texts(ns.data)
    chat = chat[: ns.chat_messages]
    configured = settings.screen_ratio
    rows = measure(model, policy, screen, labelled, chat, sorted({*RATIOS, configured}))
    best = chosen(rows)
    holds = next(row.holds for row in rows if row.ratio == configured)
    sys.stdout.write(
        f"model {model.model_id} at {dict(policy.thresholds)}, screen {screen.model_id} "
        f"(CPU kind {cpu_info().kind}); of each labelled validation split, the model's "
        f"nudges the screen would allow alone at each ratio, and the share of {len(chat)} "
        "chat messages (chitchat validation) it would answer alone:\n\n"
        + "\n".join(table(rows))
        + "\n\n"
        + (f"largest ratio that holds: {best:g}\n" if best else "no ratio holds\n")
        + f"configured ratio {configured:g}: {'holds' if holds else 'does not hold'}\n"
    )
    return EXIT_OK if holds else EXIT_RATIO_FAILS


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
    "e2e-ab": "e2e_ab",
    "cache": "cache",
    "prometheus": "promagree",
    "replay": "replay",
    "spark": "spark",
    "quant": "quant",
    "client": "client",
    "normalize": "normalize",
    "spin": "spin",
    "amx": "amx",
    "hugepages": "hugepages",
    "tokenizer": "tokenizer",
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
