"""Driver side: score a Spark DataFrame, and ship the model to the executors with the job.

The model travels as a Spark archive (``SparkContext.addArchive``): Spark copies it
to every executor and unpacks it in the executor's working directory, so executors
need no shared file system and nothing is fetched from a model hub. The archive's
name carries the model id, so two models never collide in one application.
"""

from __future__ import annotations

import atexit
import logging
import os
import shutil
import sys
import tempfile
import zipfile
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pyarrow as pa

from moderation.config import ClassifierSettings
from moderation.replay import scoring
from moderation.replay.sources import Fields
from moderation.spark.executor import Plan, score_batches, verdict_fields

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

log = logging.getLogger(__name__)

# Archives already added, per SparkContext and model directory.
_shipped: dict[tuple[int, str], str] = {}


def session(master: str | None = None, app: str = "moderation-replay") -> SparkSession:
    """The active SparkSession, or a new one (``master`` None: Spark's default).

    When this process starts Spark itself in local mode, its Python workers run this
    interpreter unless PYSPARK_PYTHON says otherwise, so they import the same
    ``moderation`` and onnxruntime as the driver. Under spark-submit (which sets
    PYSPARK_GATEWAY_PORT) or with a cluster master, the cluster's settings decide
    (``spark.pyspark.python``; docs/replay.md).
    """
    own_jvm = "PYSPARK_GATEWAY_PORT" not in os.environ
    if own_jvm and (master is None or master.startswith("local")):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app)
    if master is not None:
        builder = builder.master(master)
    spark = builder.config("spark.ui.showConsoleProgress", "false").getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    # py4j logs every gateway connection at INFO, the last ones from finalizers at
    # interpreter exit, after the streams they write to may be closed.
    logging.getLogger("py4j").setLevel(logging.WARNING)
    return spark


def ship_model(spark: SparkSession, model_dir: Path, model_id: str) -> str:
    """Add the model directory to the application as an archive; its SparkFiles name."""
    sc = spark.sparkContext
    key = (id(sc), str(model_dir.resolve()))
    if key in _shipped:
        return _shipped[key]
    name = f"moderation-model-{model_id.replace('@', '-')}"
    staging = Path(tempfile.mkdtemp(prefix="moderation-spark-"))
    # Served to executors for the application's life, which ends with this process.
    atexit.register(shutil.rmtree, staging, ignore_errors=True)
    archive = staging / f"{name}.zip"
    # Stored, not deflated: int8 weights barely compress, and deflating them took
    # seconds of every job's start.
    with zipfile.ZipFile(archive, "w", compression=zipfile.ZIP_STORED) as zf:
        for f in sorted(model_dir.rglob("*")):
            if f.is_file():
                zf.write(f, f.relative_to(model_dir).as_posix())
    sc.addArchive(f"{archive}#{name}")
    _shipped[key] = name
    log.info("model %s shipped to executors as archive %s", model_id, name)
    return name


def plan_for(
    spark: SparkSession,
    settings: ClassifierSettings,
    mode: str,
    fields: Fields,
    batch_size: int = 1,
    include_text: bool = False,
    ship: bool = True,
) -> Plan:
    """Model facts read on the driver (overrides checked), and the model shipped."""
    if batch_size < 1:
        raise ValueError(f"batch_size must be >= 1, got {batch_size}")
    scoring.warn_if_batched(batch_size)
    facts = scoring.model_facts(settings)
    archive = screen_archive = None
    if ship:
        archive = ship_model(spark, settings.model_dir, facts["model_only_id"])
        if settings.screen_dir is not None:
            screen_archive = ship_model(spark, settings.screen_dir, facts["screen_id"])
    return Plan(
        mode=mode,
        model_id=facts["id"],
        labels=tuple(facts["labels"]),
        thresholds=facts["thresholds"],
        archive=archive,
        screen_archive=screen_archive,
        settings=settings,
        batch_size=batch_size,
        fields=fields,
        include_text=include_text,
    )


def spark_schema(fields: list[pa.Field]) -> Any:
    """A Spark StructType for Arrow fields (pyspark's own converter)."""
    from pyspark.sql.pandas.types import from_arrow_schema

    return from_arrow_schema(pa.schema(fields))


def score_dataframe(
    df: DataFrame,
    text_col: str = "text",
    id_col: str | None = "id",
    *,
    settings: ClassifierSettings | None = None,
    batch_size: int = 1,
    ship: bool = True,
) -> DataFrame:
    """``df`` with verdict columns added, scored exactly as the live worker scores.

    Added: ``decision`` (nudge/allow), ``score_<label>`` per model label, ``tokens``,
    ``truncated``, ``model``, and ``error``/``detail`` (set, with the verdict columns
    null, for a row that cannot be scored: a null, empty or over-long text). Nothing
    is dropped. ``id_col`` is checked to exist and kept as it is. ``batch_size`` > 1
    batches equal-length messages: faster, but scores then move with their
    neighbours. ``ship=False`` when every executor already has ``settings.model_dir``.
    """
    from pyspark.sql.types import StringType

    settings = settings or ClassifierSettings()
    names = df.columns
    if text_col not in names:
        raise ValueError(f"no column {text_col!r} in {names}")
    if id_col is not None and id_col not in names:
        raise ValueError(f"no column {id_col!r} in {names}")
    if not isinstance(df.schema[text_col].dataType, StringType):
        raise ValueError(f"column {text_col!r} is {df.schema[text_col].dataType}, not a string")
    fields = Fields(text_col, id_col, None)
    plan = plan_for(df.sparkSession, settings, "frame", fields, batch_size, ship=ship)
    added = verdict_fields(plan.labels)
    clash = sorted({f.name for f in added} & set(names))
    if clash:
        raise ValueError(f"{clash}: the input already has these verdict column names")
    from pyspark.sql.types import StructType

    schema = StructType([*df.schema.fields, *spark_schema(added).fields])
    return df.mapInArrow(partial(score_batches, plan), schema)
