"""`moderation replay`: re-run history through the model, resumable, rate-limited.

Rows are read in a fixed order and scored in chunks by a pool of processes; chunks
are written in input order. After each chunk is written and flushed, a checkpoint
records how many input rows are done and how long each output file was. A resumed
run truncates the outputs back to that length and skips that many rows, so no row
is skipped or written twice (a topic output is flushed before each checkpoint; rows
after the last checkpoint may be produced again: at-least-once).
"""

from __future__ import annotations

import hashlib
import logging
import multiprocessing
import os
import time
from collections import deque
from collections.abc import Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from aiokafka.errors import KafkaError

from moderation.config import ClassifierSettings, KafkaSettings
from moderation.cpu import usable_cores
from moderation.replay import ReplayError, report, scoring
from moderation.replay.output import Output, Progress, write_atomic
from moderation.replay.sources import BadRow, Fields, Item, Row, count_rows, read_file

log = logging.getLogger(__name__)

CHECKPOINT_VERSION = 1


@dataclass
class Options:
    """Everything one replay run needs."""

    inputs: list[str]
    output: str
    fields: Fields = field(default_factory=Fields)
    classifier: ClassifierSettings = field(default_factory=ClassifierSettings)
    kafka: KafkaSettings = field(default_factory=KafkaSettings)
    start: tuple[str, int] | None = None
    end: tuple[str, int] | None = None
    workers: int = 0  # 0: one per usable core
    batch_size: int = 1  # 1: exact (the live path); >1: equal-length batches
    chunk: int = 512
    rate: float = 0.0  # messages per second; 0: as fast as possible
    overwrite: bool = False
    include_text: bool = False
    checkpoint: str | None = None
    report: bool = True
    progress: bool = True


@dataclass
class Summary:
    """What a run did."""

    rows: int = 0
    scored: int = 0
    bad: int = 0
    skipped_on_resume: int = 0
    seconds: float = 0.0
    report_files: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return (self.rows - self.skipped_on_resume) / self.seconds if self.seconds else 0.0


# -- inputs ----------------------------------------------------------------------------


def _items(opts: Options) -> tuple[Iterator[Item], int]:
    """Every input's rows in order, and the total (for the progress bar)."""
    sources: list[tuple[Iterator[Item], int]] = []
    for spec in opts.inputs:
        if spec.startswith("kafka:"):
            from moderation.replay.topic import read_topic

            if opts.kafka.bootstrap is None:
                raise ReplayError(f"{spec}: set MODERATION_KAFKA_BOOTSTRAP to read a topic")
            topic = spec.removeprefix("kafka:")
            try:
                sources.append(read_topic(opts.kafka, topic, opts.start, opts.end, opts.fields))
            except (ValueError, KafkaError) as exc:
                raise ReplayError(f"{spec}: {exc}") from None
        else:
            path = Path(spec)
            if not path.is_file():
                raise ReplayError(f"{spec}: no such file")
            try:
                sources.append((read_file(path, opts.fields), count_rows(path)))
            except ValueError as exc:
                raise ReplayError(str(exc)) from None

    def chain() -> Iterator[Item]:
        for it, _ in sources:
            yield from it

    return chain(), sum(n for _, n in sources)


# -- outputs ---------------------------------------------------------------------------


# -- checkpoint --------------------------------------------------------------------------


def _fingerprint(opts: Options, model_id: str) -> str:
    """What must not change between a run and its resumption."""
    facts = {
        "inputs": opts.inputs,
        "output": opts.output,
        "fields": [opts.fields.text, opts.fields.id, opts.fields.label],
        "start": opts.start,
        "end": opts.end,
        "model": model_id,
        "batch_size": opts.batch_size,
        "include_text": opts.include_text,
        "max_tokens": opts.classifier.max_tokens,
        "thresholds": dict(opts.classifier.thresholds),
    }
    return hashlib.sha256(orjson.dumps(facts, option=orjson.OPT_SORT_KEYS)).hexdigest()[:16]


# -- progress --------------------------------------------------------------------------


# -- the run ---------------------------------------------------------------------------


def _verdict_row(
    row: Row, scores: list[float], facts: dict[str, Any], include_text: bool
) -> dict[str, Any]:
    by_label = dict(zip(facts["labels"], scores, strict=True))
    out: dict[str, Any] = {
        "ref": row.ref,
        "id": row.id,
        "decision": facts["policy"].decide(by_label),
        "scores": by_label,
        "model": facts["id"],
    }
    if row.labels is not None:
        out["labels"] = row.labels
    if include_text:
        out["text"] = row.text
    return out


def replay(opts: Options) -> Summary:
    """Run (or resume) one replay; raises ReplayError on unusable options."""
    if opts.batch_size < 1 or opts.chunk < 1 or opts.rate < 0 or opts.workers < 0:
        raise ReplayError("batch size and chunk must be >= 1; rate and workers >= 0")
    scoring.warn_if_batched(opts.batch_size)
    facts = scoring.model_facts(opts.classifier)
    out = Output(opts.output, facts["labels"], opts.kafka)
    if out.topic is not None and opts.checkpoint is None:
        raise ReplayError("a topic output needs --checkpoint PATH")
    ckpt_path = Path(opts.checkpoint or opts.output + ".checkpoint.json")
    errors_path = Path(opts.checkpoint or opts.output).with_suffix(".errors.jsonl")
    fingerprint = _fingerprint(opts, facts["id"])
    state: dict[str, Any] = {
        "version": CHECKPOINT_VERSION,
        "fingerprint": fingerprint,
        "rows_done": 0,
    }
    state |= {"output_bytes": None, "errors_bytes": None, "scored": 0, "bad": 0}
    resuming = ckpt_path.is_file()
    if resuming:
        state = orjson.loads(ckpt_path.read_bytes())
        if state.get("fingerprint") != fingerprint:
            raise ReplayError(
                f"{ckpt_path} belongs to a different replay (inputs, output, model or options "
                "changed); delete it to start over"
            )
        log.info("resuming after %d rows", state["rows_done"])
    elif out.path is not None and out.path.exists() and not opts.overwrite:
        raise ReplayError(f"{out.path} exists and there is no checkpoint: pass --overwrite")
    items, total = _items(opts)
    summary = Summary(
        scored=state["scored"], bad=state["bad"], skipped_on_resume=state["rows_done"]
    )
    workers = opts.workers or usable_cores()
    settings = scoring.one_thread(opts.classifier)  # one process per core
    out.open(state["output_bytes"] if resuming else None)
    err_fh = errors_path.open("r+b" if resuming and errors_path.exists() else "wb")
    if resuming and state["errors_bytes"] is not None:
        err_fh.truncate(state["errors_bytes"])
        err_fh.seek(state["errors_bytes"])
    progress = Progress(total, state["rows_done"], opts.progress)
    t0 = time.monotonic()
    labelled: list[tuple[dict[str, int], dict[str, float]]] = []
    ctx = multiprocessing.get_context("spawn")
    pending: deque[tuple[list[Item], Future[list[scoring.Result]]]] = deque()
    done = state["rows_done"]

    def finish_one() -> None:
        nonlocal done
        chunk, fut = pending.popleft()
        results = iter(fut.result())
        rows_out, errs = [], []
        for item in chunk:
            if isinstance(item, BadRow):
                errs.append({"ref": item.ref, "error": item.error, "detail": item.detail})
                continue
            res = next(results)
            if isinstance(res, tuple):
                errs.append({"ref": item.ref, "id": item.id, "error": res[0], "detail": res[1]})
                continue
            v = _verdict_row(item, res.scores, facts, opts.include_text)
            rows_out.append(v)
            if item.labels is not None:
                labelled.append((item.labels, v["scores"]))
        if rows_out:
            out.write(rows_out)
        if errs:
            err_fh.write(b"".join(orjson.dumps(e) + b"\n" for e in errs))
        done += len(chunk)
        state["scored"] += len(rows_out)
        state["bad"] += len(errs)
        state["rows_done"] = done
        state["output_bytes"] = out.flush()
        err_fh.flush()
        os.fsync(err_fh.fileno())
        state["errors_bytes"] = err_fh.tell()
        write_atomic(ckpt_path, orjson.dumps(state))
        progress.update(done)

    try:
        with ProcessPoolExecutor(
            workers, mp_context=ctx, initializer=scoring.init, initargs=(settings,)
        ) as pool:
            skip = state["rows_done"]
            chunk: list[Item] = []
            sent = 0
            for item in items:
                if skip:
                    skip -= 1
                    continue
                chunk.append(item)
                if len(chunk) < opts.chunk:
                    continue
                sent = _submit(pool, pending, chunk, opts, t0, sent)
                chunk = []
                while len(pending) > 2 * workers or (pending and pending[0][1].done()):
                    finish_one()
            if chunk:
                _submit(pool, pending, chunk, opts, t0, sent)
            while pending:
                finish_one()
    finally:
        out.close()
        err_fh.close()
    progress.update(done, final=True)
    summary.rows = done
    summary.scored = state["scored"]
    summary.bad = state["bad"]
    summary.seconds = time.monotonic() - t0
    if opts.report:
        summary.report_files = _report(opts, out, facts, labelled)
    ckpt_path.unlink(missing_ok=True)
    return summary


def _submit(
    pool: ProcessPoolExecutor,
    pending: deque[tuple[list[Item], Future[list[scoring.Result]]]],
    chunk: list[Item],
    opts: Options,
    t0: float,
    sent: int,
) -> int:
    """Queue one chunk for scoring, holding back first if a rate limit applies."""
    texts = [i.text for i in chunk if isinstance(i, Row)]
    if opts.rate > 0:
        due = t0 + (sent + len(chunk)) / opts.rate
        delay = due - time.monotonic()
        if delay > 0:
            time.sleep(delay)
    pending.append((chunk, pool.submit(scoring.score_texts, texts, opts.batch_size)))
    return sent + len(chunk)


def _report(
    opts: Options,
    out: Output,
    facts: dict[str, Any],
    labelled: list[tuple[dict[str, int], dict[str, float]]],
) -> list[str]:
    """Quality report files beside the output, when any row had labels."""
    if out.path is not None and out.path.suffix.lower() == ".jsonl":
        # The whole run's rows, including those done before a resume.
        labelled = []
        with out.path.open("rb") as fh:
            for line in fh:
                r = orjson.loads(line)
                if r.get("labels"):
                    labelled.append((r["labels"], r["scores"]))
    if not labelled:
        return []
    results = report.quality(labelled, facts["thresholds"])
    base = Path(opts.checkpoint or opts.output)
    md = base.with_suffix(".report.md")
    md.write_text(report.markdown(results, facts["id"], len(labelled)), encoding="utf-8")
    js = base.with_suffix(".report.json")
    js.write_bytes(orjson.dumps(report.as_json(results), option=orjson.OPT_INDENT_2))
    files = [str(md), str(js)]
    png = base.with_suffix(".pr.png")
    if report.plot(results, png):
        files.append(str(png))
    else:
        log.warning("matplotlib not installed: no precision-recall plot (pip install '.[replay]')")
    return files
