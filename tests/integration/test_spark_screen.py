"""Scoring on Spark with the screen in front (moderation/screen.py): the screen ships to
the executors beside the model, and each row is scored as the pair scores it in this
process. A Spark application of its own: one Python worker serves one model."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from moderation.bench.model import chat_messages
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, default_model_dir
from moderation.config.model import DEFAULT_SCREEN_NAME

pytest.importorskip("pyarrow", reason="the spark extra is not installed")
pytest.importorskip("pyspark", reason="the spark extra is not installed")

from moderation.spark import score_dataframe, session

PAIR = ClassifierSettings(screen_dir=default_model_dir(DEFAULT_SCREEN_NAME), one_thread_up_to=0)
ABUSE = ["you are a worthless piece of shit", "I will find you and kill you"]


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    s = session("local[2]", app="moderation-tests-screen")
    yield s
    s.stop()


def test_rows_are_scored_by_the_pair_the_screen_shipped_beside_the_model(spark: Any) -> None:
    pair = Classifier(PAIR)
    texts = [t for t in dict.fromkeys(chat_messages(200, 0.05, 11)) if "\n" not in t] + ABUSE
    df = spark.createDataFrame(
        [(f"m{i}", t) for i, t in enumerate(texts)], "id string, text string"
    )
    rows = {r["id"]: r for r in score_dataframe(df, "text", "id", settings=PAIR).collect()}
    assert len(rows) == len(texts)
    for i, text in enumerate(texts):
        r = rows[f"m{i}"]
        want = pair.label_scores(pair.scores(pair.encode(text)))
        assert {k: r[f"score_{k}"] for k in pair.labels} == want, text
        assert r["model"] == pair.model_id
    assert pair.screen is not None and "+screen:" in pair.model_id
    assert {rows[f"m{len(texts) - 1}"]["decision"], rows[f"m{len(texts) - 2}"]["decision"]} == {
        "nudge"
    }
