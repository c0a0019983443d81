"""Replay on Apache Spark (local[2]): every good row scored once, as live; bad rows named.

Needs Java and the `spark` extra; scripts/test.sh installs both (a JRE from Debian).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from moderation.bench.model import chat_messages
from moderation.classifier import Classifier
from moderation.policy import Policy
from moderation.replay import ReplayError
from moderation.replay.sources import MAX_TEXT_CHARS, Fields

pytestmark = pytest.mark.integration

if shutil.which("java") is None:
    pytest.skip(
        "no java: the Spark tests need a JRE (scripts/test.sh installs Debian's)",
        allow_module_level=True,
    )
pa = pytest.importorskip("pyarrow", reason="the spark extra is not installed")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("pyspark", reason="the spark extra is not installed")

from moderation.spark import score_dataframe, session  # noqa: E402
from moderation.spark.replay import SparkOptions, replay_spark  # noqa: E402

ABUSE = [
    "I will find you and hurt you",
    "you are a worthless idiot",
    "go hang yourself",
    "y o u  a r e  a n  i d i o t",
    "shut up you stupid b1tch",
]


def messages(n: int, seed: int) -> list[str]:
    """Chat (with long pastes that truncate), some abuse, and repeats."""
    rng = random.Random(seed)
    texts = chat_messages(n - n // 10, 0.03, seed) + [rng.choice(ABUSE) for _ in range(n // 20)]
    texts += rng.sample(texts, n - len(texts))  # repeats: scored once, answered for each row
    rng.shuffle(texts)
    return texts


@pytest.fixture(scope="module")
def spark() -> Iterator[Any]:
    s = session("local[2]", app="moderation-tests")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def live(classifier: Classifier) -> tuple[Classifier, Policy]:
    """The shipped model as the worker runs it (tests/conftest.py), and its policy."""
    return classifier, Policy.for_model(classifier.labels, classifier.manifest["thresholds"], {})


def test_jsonl_and_parquet_every_good_row_once_scored_as_live(
    spark: Any, live: tuple[Classifier, Policy], tmp_path: Path
) -> None:
    classifier, policy = live
    texts = messages(2000, 3)
    labels = [int(t in ABUSE) for t in texts]
    expected: dict[str, tuple[str, str]] = {}  # ref -> (id, text)
    bad: dict[str, str] = {}  # ref -> error code

    # JSONL: 2,000 messages with bad lines among them (a blank line is skipped, unnamed).
    jsonl_bad = {
        7: b"{not json",
        40: b"[1, 2, 3]",
        41: b'{"id": "no-text"}',
        300: b'{"id": "n", "text": 12}',
        301: orjson.dumps({"id": "big", "text": "a" * (MAX_TEXT_CHARS + 1)}),
        302: b'{"id": "lab", "text": "hello", "label": 7}',
        303: b'{"id": "ws", "text": "  \\u200b "}',
        304: b"",
    }
    codes = {7: "invalid_json", 40: "not_an_object", 41: "missing_field", 300: "wrong_type"}
    codes |= {301: "too_large", 302: "bad_label", 303: "empty_text"}
    lines, line_no, i = [], 0, 0
    while i < len(texts):
        line_no += 1
        if line_no in jsonl_bad:
            lines.append(jsonl_bad[line_no])
            if line_no in codes:
                bad[f"history.jsonl:{line_no}"] = codes[line_no]
            continue
        row = {"id": f"j{i}", "text": texts[i], "label": labels[i]}
        lines.append(orjson.dumps(row))
        expected[f"history.jsonl:{line_no}"] = (f"j{i}", texts[i])
        i += 1
    (tmp_path / "history.jsonl").write_bytes(b"\n".join(lines) + b"\n")

    # Parquet: the same 2,000 in another order, with null, empty, over-long texts and a bad label.
    order = random.Random(4).sample(range(len(texts)), len(texts))
    p_text: list[str | None] = [texts[k] for k in order]
    p_label: list[Any] = [str(labels[k]) for k in order]
    for pos, (value, code) in {
        10: (None, "missing_field"),
        11: ("", "empty_text"),
        12: ("b" * (MAX_TEXT_CHARS + 5), "too_large"),
    }.items():
        p_text.insert(pos, value)
        p_label.insert(pos, "0")
        order.insert(pos, -1)
        bad[f"lake.parquet#{pos + 1}"] = code
    p_label[500] = "maybe"
    bad["lake.parquet#501"] = "bad_label"
    table = pa.table(
        {"id": [f"p{n}" for n in range(len(p_text))], "text": p_text, "label": p_label}
    )
    pq.write_table(table, tmp_path / "lake.parquet", row_group_size=700)
    for n, text in enumerate(p_text):
        ref = f"lake.parquet#{n + 1}"
        if ref not in bad:
            assert text is not None
            expected[ref] = (f"p{n}", text)

    out = tmp_path / "verdicts.parquet"
    summary = replay_spark(
        SparkOptions(
            [str(tmp_path / "history.jsonl"), str(tmp_path / "lake.parquet")],
            str(out),
            fields=Fields("text", "id", "label"),
        )
    )
    got = pq.read_table(out).to_pylist()
    refs = [r["ref"] for r in got]
    assert len(refs) == len(set(refs)), "a row was written twice"
    assert set(refs) == set(expected), "a good row is missing or an unknown one appeared"
    errors = {r["ref"]: r["error"] for r in pq.read_table(summary.errors_file).to_pylist()}
    assert errors == bad
    assert (summary.scored, summary.bad, summary.rows) == (
        len(expected),
        len(bad),
        len(got) + len(bad),
    )

    for r in got:
        mid, text = expected[r["ref"]]
        assert r["id"] == mid
        enc = classifier.encode(text)
        scores = classifier.label_scores(classifier.scores(enc))
        assert {k: r[f"score_{k}"] for k in classifier.labels} == scores, r["ref"]
        assert r["decision"] == policy.decide(scores)
        assert (r["tokens"], r["truncated"], r["model"]) == (
            enc.tokens,
            enc.truncated,
            classifier.model_id,
        )
    assert any(r["truncated"] for r in got) and any(r["decision"] == "nudge" for r in got)
    report = orjson.loads((tmp_path / "verdicts.report.json").read_bytes())
    assert report[0]["label"] == "nudge" and report[0]["rows"] == len(expected)


def test_scores_equal_moderation_classify(spark: Any, tmp_path: Path) -> None:
    texts = [t for t in dict.fromkeys(messages(300, 8)) if "\n" not in t]
    df = spark.createDataFrame(
        [(f"m{i}", t) for i, t in enumerate(texts)], "id string, text string"
    )
    scored = {r["id"]: r for r in score_dataframe(df, "text", "id").collect()}
    # score_dataframe's default is the model alone (ClassifierSettings()); the command
    # reads the environment, where a screen may be on by default on this CPU.
    cli = subprocess.run(
        [sys.executable, "-m", "moderation.cli", "classify"],
        env={**os.environ, "MODERATION_SCREEN_DIR": "off"},
        input="\n".join(texts).encode(),
        capture_output=True,
        check=True,
    )
    printed = [orjson.loads(line) for line in cli.stdout.splitlines()]
    assert len(printed) == len(texts)
    for i, p in enumerate(printed):
        r = scored[f"m{i}"]
        assert r["text"] == texts[i]
        assert {k: r[f"score_{k}"] for k in p["scores"]} == p["scores"]
        assert (r["decision"], r["tokens"], r["truncated"]) == (
            p["decision"],
            p["tokens"],
            p["truncated"],
        )


def test_score_dataframe_keeps_every_row_and_names_bad_ones(spark: Any) -> None:
    df = spark.createDataFrame(
        [("a", "hello there", 1), ("b", None, 2), ("c", " \u200b ", 3), ("d", "you idiot", 4)],
        "id string, text string, n int",
    )
    rows = {r["id"]: r for r in score_dataframe(df, "text", "id").collect()}
    assert set(rows) == {"a", "b", "c", "d"} and rows["d"]["n"] == 4
    assert rows["a"]["error"] is None and rows["a"]["decision"] in ("allow", "nudge")
    assert (rows["b"]["error"], rows["b"]["decision"]) == ("missing_field", None)
    assert (rows["c"]["error"], rows["c"]["score_toxic"]) == ("empty_text", None)
    with pytest.raises(ValueError, match="no column 'body'"):
        score_dataframe(df, "body", "id")
    with pytest.raises(ValueError, match="not a string"):
        score_dataframe(df, "n", "id")
    with pytest.raises(ValueError, match="verdict column names"):
        score_dataframe(df.withColumnRenamed("n", "decision"), "text", "id")


def test_unusable_runs_are_refused_before_any_work(spark: Any, tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    src.write_bytes(b'{"text": "hi"}\n')
    with pytest.raises(ReplayError, match="writes Parquet"):
        replay_spark(SparkOptions([str(src)], str(tmp_path / "out.jsonl")))
    with pytest.raises(ReplayError, match="no such file"):
        replay_spark(SparkOptions([str(tmp_path / "gone.jsonl")], str(tmp_path / "o.parquet")))
    pq.write_table(pa.table({"text": [1, 2]}), tmp_path / "ints.parquet")
    with pytest.raises(ReplayError, match="not a string"):
        replay_spark(SparkOptions([str(tmp_path / "ints.parquet")], str(tmp_path / "o.parquet")))
    out = tmp_path / "twice.parquet"
    replay_spark(SparkOptions([str(src)], str(out), report=False))
    with pytest.raises(ReplayError, match="--overwrite"):
        replay_spark(SparkOptions([str(src)], str(out), report=False))
    replay_spark(SparkOptions([str(src)], str(out), report=False, overwrite=True))
    assert pq.read_table(out).num_rows == 1
    args = ["replay", str(src), "--output", "x.parquet", "--engine", "spark", "--rate", "5"]
    cli = subprocess.run(
        [sys.executable, "-m", "moderation.cli", *args],
        capture_output=True,
        text=True,
    )
    assert cli.returncode == 2 and "--rate: not with --engine spark" in cli.stderr
