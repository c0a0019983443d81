"""Replay at data-lake scale on Apache Spark (the optional ``spark`` extra).

``score_dataframe(df, "text", "id")`` adds verdict columns to any DataFrame through
``mapInArrow``; ``moderation replay --engine spark`` reads JSONL, CSV or Parquet and
writes Parquet with the native replay's report. See docs/replay.md.
"""

from moderation.spark.frames import score_dataframe, session, ship_model

__all__ = ["score_dataframe", "session", "ship_model"]
