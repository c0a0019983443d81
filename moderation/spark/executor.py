"""What runs inside Spark's Python workers: rows in, verdicts out, through the live path.

Each Python worker process loads the classifier once (Spark reuses its Python
workers across tasks, so the model stays loaded across batches and tasks) with one
ONNX Runtime thread: a Spark task already owns one core, and one single-threaded
session per core is what scales (docs/replay.md). Messages are scored one at a
time, with no padding, by ``moderation.replay.scoring``, the code the native replay
runs, so a score here equals the worker's. Nothing in this module imports pyspark:
it sees only Arrow record batches.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa

from moderation.classifier import Classifier
from moderation.config import ClassifierSettings
from moderation.errors import InvalidTextError, ModelLoadError
from moderation.policy import Policy
from moderation.replay import scoring
from moderation.replay.sources import (
    BadRow,
    Fields,
    Item,
    Row,
    csv_items,
    make_row,
    parse_json_line,
)

# Columns every scored row gains, after the per-label score columns' prefix.
SCORE_PREFIX = "score_"


@dataclass(frozen=True)
class Plan:
    """Everything a task needs, pickled once per stage by Spark.

    ``mode`` is ``frame`` (a caller's DataFrame: its columns kept, verdict columns
    added) or ``replay`` (the replay tool's normalised input rows).
    """

    mode: str
    model_id: str
    labels: tuple[str, ...]
    thresholds: dict[str, float]
    archive: str | None  # SparkFiles name of the shipped model, or None: model_dir as is
    settings: ClassifierSettings  # the driver's; model_dir is replaced by the archive's
    batch_size: int = 1
    # SparkFiles name of the shipped screen (moderation/screen.py), or None: screen_dir
    # as is (or no screen).
    screen_archive: str | None = None
    fields: Fields = field(default_factory=Fields)
    include_text: bool = False


def verdict_fields(labels: tuple[str, ...]) -> list[pa.Field]:
    """The columns scoring adds, in order."""
    return [
        pa.field("decision", pa.string()),
        *(pa.field(SCORE_PREFIX + label, pa.float64()) for label in labels),
        pa.field("tokens", pa.int32()),
        pa.field("truncated", pa.bool_()),
        pa.field("model", pa.string()),
        pa.field("error", pa.string()),
        pa.field("detail", pa.string()),
    ]


def replay_fields(plan: Plan) -> list[pa.Field]:
    """The replay tool's output columns (before it splits verdicts from errors)."""
    head = [pa.field("ref", pa.string()), pa.field("id", pa.string())]
    tail = [pa.field("labels", pa.string())]
    if plan.include_text:
        tail.append(pa.field("text", pa.string()))
    return head + verdict_fields(plan.labels) + tail


def _classifier_settings(plan: Plan) -> ClassifierSettings:
    if plan.archive is None:
        return scoring.one_thread(plan.settings)
    from pyspark import SparkFiles  # only here: this module's tests run without Spark

    shipped = Path(SparkFiles.get(plan.archive))
    screen = plan.settings.screen_dir
    if plan.screen_archive is not None:
        screen = Path(SparkFiles.get(plan.screen_archive))
    return scoring.one_thread(replace(plan.settings, model_dir=shipped, screen_dir=screen))


def _load(plan: Plan) -> Classifier:
    c = scoring.load(_classifier_settings(plan))
    if c.model_id != plan.model_id:
        raise ModelLoadError(
            f"executor loaded model {c.model_id}, the job was planned for {plan.model_id}: "
            "one Python worker cannot serve two models; use one model per Spark application"
        )
    return c


# The replay's rows before scoring: named, and either a JSONL line still to parse or
# parsed fields (text, id, the label as JSON {"v": value}), or an error found reading.
INPUT_FIELDS = [
    pa.field("ref", pa.string()),
    pa.field("line", pa.string()),
    pa.field("text", pa.string()),
    pa.field("id", pa.string()),
    pa.field("label", pa.string()),
    pa.field("error", pa.string()),
    pa.field("detail", pa.string()),
]


def parse_csv_files(fields: Fields, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """Whole CSV files (Spark's binaryFile rows) to named rows, read as the native replay does.

    Python's csv module reads quoted cells across lines and names each row by its first
    line, so refs and error codes equal the native replay's.
    """
    schema = pa.schema(INPUT_FIELDS)
    for batch in batches:
        for path, content in zip(
            batch.column("path").to_pylist(), batch.column("content").to_pylist(), strict=True
        ):
            name = path.rstrip("/").rsplit("/", 1)[-1]
            cols: dict[str, list[Any]] = {f.name: [] for f in INPUT_FIELDS}
            for item in csv_items(name, io.BytesIO(content), fields):
                cols["ref"].append(item.ref)
                cols["line"].append(None)
                if isinstance(item, BadRow):
                    for k in ("text", "id", "label"):
                        cols[k].append(None)
                    cols["error"].append(item.error)
                    cols["detail"].append(item.detail)
                    continue
                cols["text"].append(item.text)
                cols["id"].append(item.id)
                cols["label"].append(orjson.dumps({"v": item.labels}).decode())
                cols["error"].append(None)
                cols["detail"].append(None)
            arrays = [pa.array(cols[f.name], f.type) for f in INPUT_FIELDS]
            yield pa.RecordBatch.from_arrays(arrays, schema=schema)


def _replay_items(batch: pa.RecordBatch, fields: Fields) -> list[Item]:
    """The replay's named input rows (INPUT_FIELDS) as rows to score or bad rows."""
    cols = {name: batch.column(name).to_pylist() for name in batch.schema.names}
    items: list[Item] = []
    for i, ref in enumerate(cols["ref"]):
        line = cols["line"][i]
        if line is not None:
            item = parse_json_line(ref, line, fields)
            if item is not None:
                items.append(item)
            continue
        if cols["error"][i] is not None:
            items.append(BadRow(ref, cols["error"][i], cols["detail"][i] or ""))
            continue
        label = cols["label"][i]
        obj: dict[str, Any] = {
            fields.text: cols["text"][i],
            "id": cols["id"][i],
            "label": orjson.loads(label).get("v") if label is not None else None,
        }
        items.append(make_row(ref, obj, Fields(fields.text, "id", "label"), ref))
    return items


def _verdict_columns(
    plan: Plan, policy: Policy, items: list[Item], results: list[scoring.Result | None]
) -> dict[str, list[Any]]:
    """The verdict columns for items and their results (None: a BadRow, not scored)."""
    out: dict[str, list[Any]] = {f.name: [] for f in verdict_fields(plan.labels)}
    for item, res in zip(items, results, strict=True):
        if isinstance(item, BadRow) or res is None or isinstance(res, tuple):
            if isinstance(item, BadRow):
                error, detail = item.error, item.detail
            else:
                error, detail = res if isinstance(res, tuple) else ("internal_error", "not scored")
            for name in out:
                out[name].append(None)
            out["error"][-1], out["detail"][-1] = error, detail
            continue
        by_label = dict(zip(plan.labels, res.scores, strict=True))
        out["decision"].append(policy.decide(by_label))
        for label in plan.labels:
            out[SCORE_PREFIX + label].append(by_label[label])
        out["tokens"].append(res.tokens)
        out["truncated"].append(res.truncated)
        out["model"].append(plan.model_id)
        out["error"].append(None)
        out["detail"].append(None)
    return out


def _score(plan: Plan, items: list[Item]) -> list[scoring.Result | None]:
    rows = [i for i in items if isinstance(i, Row)]
    scored = iter(scoring.score_texts([r.text for r in rows], plan.batch_size))
    return [next(scored) if isinstance(i, Row) else None for i in items]


ERROR_FIELDS = [
    pa.field("ref", pa.string()),
    pa.field("id", pa.string()),
    pa.field("error", pa.string()),
    pa.field("detail", pa.string()),
]


def error_batches(plan: Plan, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The replay's bad rows alone: read and tokenized as for scoring, never run through
    the model, so writing them apart costs no second inference pass and no cache."""
    c = _load(plan)
    schema = pa.schema(ERROR_FIELDS)
    for batch in batches:
        cols: dict[str, list[Any]] = {f.name: [] for f in ERROR_FIELDS}
        for item in _replay_items(batch, plan.fields):
            if isinstance(item, BadRow):
                found: tuple[str | None, str, str] | None = (None, item.error, item.detail)
            else:
                try:
                    c.encode(item.text)
                    found = None
                except InvalidTextError as exc:
                    found = (item.id, exc.code, str(exc))
            if found is not None:
                cols["ref"].append(item.ref)
                cols["id"].append(found[0])
                cols["error"].append(found[1])
                cols["detail"].append(found[2])
        yield pa.RecordBatch.from_arrays(
            [pa.array(cols[f.name], f.type) for f in ERROR_FIELDS], schema=schema
        )


def score_batches(plan: Plan, batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The ``mapInArrow`` function: each batch back with its verdict columns."""
    _load(plan)
    policy = Policy(plan.thresholds)
    added = verdict_fields(plan.labels)
    for batch in batches:
        if plan.mode == "frame":
            texts = batch.column(plan.fields.text).to_pylist()
            items: list[Item] = [
                make_row(str(i), {plan.fields.text: t}, Fields(plan.fields.text, None, None), "")
                for i, t in enumerate(texts)
            ]
            cols = _verdict_columns(plan, policy, items, _score(plan, items))
            arrays = list(batch.columns) + [pa.array(cols[f.name], f.type) for f in added]
            yield pa.RecordBatch.from_arrays(arrays, schema=pa.schema([*batch.schema, *added]))
            continue
        items = _replay_items(batch, plan.fields)
        cols = _verdict_columns(plan, policy, items, _score(plan, items))
        cols["ref"] = [i.ref for i in items]
        cols["id"] = [i.id if isinstance(i, Row) else None for i in items]
        cols["labels"] = [
            orjson.dumps(i.labels).decode() if isinstance(i, Row) and i.labels else None
            for i in items
        ]
        if plan.include_text:
            cols["text"] = [i.text if isinstance(i, Row) else None for i in items]
        schema = pa.schema(replay_fields(plan))
        arrays = [pa.array(cols[f.name], f.type) for f in schema]
        yield pa.RecordBatch.from_arrays(arrays, schema=schema)
