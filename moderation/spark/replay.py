"""`moderation replay --engine spark`: history in JSONL, CSV or Parquet; verdicts out as Parquet.

Every input row keeps a name across runs: ``file:line`` for JSONL and CSV (as the
native replay names them) and ``file#N`` (the Nth row) for Parquet. Spark reads a
file in splits and gives no line numbers, so a first, cheap pass counts the rows of
each split (JVM only, no Python), and each row's number is its split's first number
plus its place in the split. CSV files are read whole by Python's csv module. Rows
then spread over the cluster's cores and are scored by ``moderation.spark.executor``
through the live path. Bad rows are counted and written apart
(``OUTPUT.errors.parquet``), never fatal. With labels, the same quality report as the
native replay is written beside the output.

No checkpoint: a failed task is retried by Spark, and a failed job is run again
whole (the output is written only when every task has succeeded).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from moderation.config import ClassifierSettings
from moderation.replay import ReplayError, report
from moderation.replay.sources import Fields
from moderation.spark.executor import (
    ERROR_FIELDS,
    INPUT_FIELDS,
    SCORE_PREFIX,
    error_batches,
    parse_csv_files,
    replay_fields,
    score_batches,
)
from moderation.spark.frames import plan_for, session, spark_schema

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

# Tasks per core when the input has fewer splits: small enough to keep every core
# busy to the end, large enough that per-task start-up stays negligible.
TASKS_PER_CORE = 4


@dataclass
class SparkOptions:
    """One Spark replay run."""

    inputs: list[str]
    output: str
    fields: Fields = field(default_factory=Fields)
    classifier: ClassifierSettings = field(default_factory=ClassifierSettings)
    master: str | None = None
    batch_size: int = 1
    overwrite: bool = False
    include_text: bool = False
    report: bool = True
    partitions: int = 0  # 0: TASKS_PER_CORE per core when the input has fewer splits


@dataclass
class SparkSummary:
    """What a run did."""

    rows: int = 0
    scored: int = 0
    bad: int = 0
    seconds: float = 0.0
    engine: str = "spark"
    master: str = ""
    cores: int = 0
    tasks: int = 0
    errors_file: str = ""
    report_files: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return self.rows / self.seconds if self.seconds else 0.0


def input_format(spec: str) -> str:
    """``jsonl``, ``csv`` or ``parquet``, by the path's ending (a directory is Parquet)."""
    name = spec.rstrip("/").lower()
    if name.endswith((".jsonl", ".ndjson", ".json")):
        return "jsonl"
    if name.endswith(".csv"):
        return "csv"
    if name.endswith(".parquet") or ("://" not in spec and Path(spec).is_dir()):
        return "parquet"
    raise ReplayError(f"{spec}: unknown input format (use .jsonl, .csv, .parquet or a directory)")


def _check_local(spec: str) -> None:
    if spec.startswith("kafka:"):
        raise ReplayError(f"{spec}: the spark engine reads files; replay a topic natively")
    if "://" not in spec and not Path(spec).exists():
        raise ReplayError(f"{spec}: no such file or directory")


def _read(spark: SparkSession, spec: str, fields: Fields) -> DataFrame:
    """One input as named rows (executor.INPUT_FIELDS)."""
    from pyspark.sql import functions as F
    from pyspark.sql.types import StringType

    fmt = input_format(spec)
    null = F.lit(None).cast("string")
    if fmt == "csv":
        # Whole files, read by Python's csv module: quoted cells may span lines, and a
        # malformed record must not swallow the next one (Spark's multi-line CSV
        # reader does), so refs and error codes equal the native replay's.
        files = spark.read.format("binaryFile").load(spec).select("path", "content")
        return files.mapInArrow(partial(parse_csv_files, fields), spark_schema(INPUT_FIELDS))
    meta = [
        F.col("_metadata.file_path").alias("path"),
        F.col("_metadata.file_name").alias("file"),
        F.col("_metadata.file_block_start").alias("block"),
        F.monotonically_increasing_id().alias("mid"),
    ]
    if fmt == "jsonl":
        lines = spark.read.text(spec).select(*meta, F.lit(":").alias("sep"), "value")
        return _numbered(spark, lines).select(
            "ref",
            F.col("value").alias("line"),
            *(null.alias(c) for c in ("text", "id", "label", "error", "detail")),
        )
    df = spark.read.parquet(spec)
    cols = df.columns
    if fields.text not in cols:
        raise ReplayError(f"{spec}: no column {fields.text!r} (columns: {cols})")
    kind = df.schema[fields.text].dataType
    if not isinstance(kind, StringType):
        raise ReplayError(f"{spec}: column {fields.text!r} is {kind.simpleString()}, not a string")

    def optional(name: str | None, to_json: bool) -> Any:
        if not name or name not in cols:
            return null
        c = F.col(name)
        # JSON keeps the type: 1.0 and true stay numbers and booleans for the label parser.
        return F.to_json(F.struct(c.alias("v"))) if to_json else c.cast("string")

    records = df.select(
        *meta,
        F.lit("#").alias("sep"),
        F.col(fields.text).alias("text"),
        optional(fields.id, False).alias("id"),
        optional(fields.label, True).alias("label"),
    )
    return _numbered(spark, records).select(
        "ref", null.alias("line"), "text", "id", "label", null.alias("error"), null.alias("detail")
    )


def _numbered(spark: SparkSession, df: DataFrame) -> DataFrame:
    """``ref`` for every row: its split's first row number plus its place in the split."""
    from pyspark.sql import functions as F

    # Read twice (here and in the job), not cached: the scan is cheap next to scoring,
    # and monotonically_increasing_id is the same for the same files and splits.
    splits = df.groupBy("path", "block").agg(F.count("*").alias("n"), F.min("mid").alias("m0"))
    firsts: list[tuple[str, int, int]] = []
    done: dict[str, int] = {}
    for r in sorted(splits.collect(), key=lambda r: (r["path"], r["block"])):
        first = done.get(r["path"], 0) + 1
        firsts.append((r["path"], r["block"], first - r["m0"]))
        done[r["path"]] = first - 1 + r["n"]
    base = spark.createDataFrame(firsts, "path string, block long, base long")
    ref = F.concat(F.col("file"), F.col("sep"), (F.col("base") + F.col("mid")).cast("string"))
    rest = [c for c in df.columns if c not in ("path", "file", "block", "mid", "sep")]
    return df.join(F.broadcast(base), ["path", "block"]).select(ref.alias("ref"), *rest)


def _paths(output: str) -> tuple[str, str, Path]:
    """(verdicts, errors, local base for the report files) for an output path."""
    out = output.rstrip("/")
    stem = out[: -len(".parquet")] if out.endswith(".parquet") else out
    local = Path(stem.split("://", 1)[1] if stem.startswith("file://") else stem)
    if "://" in stem and not stem.startswith("file://"):
        local = Path(stem.rsplit("/", 1)[-1])  # a remote output: the report goes here
    return out, stem + ".errors.parquet", local


def replay_spark(opts: SparkOptions) -> SparkSummary:
    """Run one Spark replay; raises ReplayError on unusable options or inputs."""
    from pyspark.errors import AnalysisException
    from pyspark.sql import functions as F

    for spec in opts.inputs:
        _check_local(spec)
        input_format(spec)
    if not opts.output.rstrip("/").endswith(".parquet"):
        raise ReplayError(f"{opts.output}: the spark engine writes Parquet; end it in .parquet")
    out_path, err_path, local = _paths(opts.output)
    for path in (out_path, err_path):
        if not opts.overwrite and "://" not in path and Path(path).exists():
            raise ReplayError(f"{path} exists: pass --overwrite")
    t0 = time.monotonic()
    spark = session(opts.master)
    cores = spark.sparkContext.defaultParallelism
    plan = plan_for(
        spark, opts.classifier, "replay", opts.fields, opts.batch_size, opts.include_text
    )
    frames = [_read(spark, spec, opts.fields) for spec in opts.inputs]
    rows = frames[0]
    for f in frames[1:]:
        rows = rows.unionByName(f)
    want = opts.partitions or cores * TASKS_PER_CORE
    if rows.rdd.getNumPartitions() < want:
        rows = rows.repartition(want)
    tasks = rows.rdd.getNumPartitions()
    scored = rows.mapInArrow(partial(score_batches, plan), spark_schema(replay_fields(plan)))
    bad_rows = rows.mapInArrow(partial(error_batches, plan), spark_schema(ERROR_FIELDS))
    mode = "overwrite" if opts.overwrite else "errorifexists"
    try:
        # One inference pass: the verdicts. The errors come from a pass that reads and
        # tokenizes but never runs the model (no cache of the scored rows needed).
        scored.where(F.col("error").isNull()).drop("error", "detail").write.mode(mode).parquet(
            out_path
        )
        bad_rows.write.mode(mode).parquet(err_path)
    except AnalysisException as exc:
        if "already exists" in str(exc) or "PATH_ALREADY_EXISTS" in str(exc):
            raise ReplayError(f"{out_path} or {err_path} exists: pass --overwrite") from None
        raise
    written = spark.read.parquet(out_path)
    summary = SparkSummary(
        scored=written.count(),  # from the Parquet footers
        bad=spark.read.parquet(err_path).count(),
        master=str(spark.sparkContext.master),
        cores=cores,
        tasks=tasks,
        errors_file=err_path,
    )
    summary.rows = summary.scored + summary.bad
    if opts.report:
        summary.report_files = _report(written, plan.labels, plan.thresholds, plan.model_id, local)
    summary.seconds = time.monotonic() - t0
    return summary


def _report(
    scored: DataFrame,
    labels: tuple[str, ...],
    thresholds: dict[str, float],
    model_id: str,
    base: Path,
) -> list[str]:
    """The native replay's report from the written verdicts' labelled rows (streamed)."""
    from pyspark.sql import functions as F

    cols = [SCORE_PREFIX + label for label in labels]
    labelled = [
        (orjson.loads(r["labels"]), dict(zip(labels, (r[c] for c in cols), strict=True)))
        for r in scored.where(F.col("labels").isNotNull()).select("labels", *cols).toLocalIterator()
    ]
    if not labelled:
        return []
    results = report.quality(labelled, thresholds)
    base.parent.mkdir(parents=True, exist_ok=True)
    md = base.with_name(base.name + ".report.md")
    md.write_text(report.markdown(results, model_id, len(labelled)), encoding="utf-8")
    js = base.with_name(base.name + ".report.json")
    js.write_bytes(orjson.dumps(report.as_json(results), option=orjson.OPT_INDENT_2))
    files = [str(md), str(js)]
    png = base.with_name(base.name + ".pr.png")
    if report.plot(results, png):
        files.append(str(png))
    return files
