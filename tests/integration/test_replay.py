"""`moderation replay` end to end: exact scores, resume, formats, topics, the report."""

from __future__ import annotations

import asyncio
import csv
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from moderation.bench.model import chat_messages
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, KafkaSettings
from moderation.replay.run import Options, ReplayError, replay
from tests.integration.conftest import wait_for
from tests.integration.kafka_io import message, produce, read
from tests.topics import Topics

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def write_jsonl(path: Path, texts: list[str], labels: list[int] | None = None) -> None:
    with path.open("wb") as fh:
        for i, t in enumerate(texts):
            row: dict[str, Any] = {"id": f"m{i}", "text": t}
            if labels is not None:
                row["label"] = labels[i]
            fh.write(orjson.dumps(row) + b"\n")


def rows(path: Path) -> list[dict[str, Any]]:
    return [orjson.loads(line) for line in path.read_bytes().splitlines()]


def test_scores_match_the_live_path(tmp_path: Path) -> None:
    texts = chat_messages(300, 0.05, 11)
    texts += texts[:40]  # repeats are scored once, and must still match
    src = tmp_path / "in.jsonl"
    write_jsonl(src, texts)
    out = tmp_path / "out.jsonl"
    summary = replay(Options([str(src)], str(out), workers=2, chunk=64, progress=False))
    assert summary.scored == len(texts) and summary.bad == 0
    live = Classifier(ClassifierSettings())  # the worker's own configuration
    got = rows(out)
    assert [r["id"] for r in got] == [f"m{i}" for i in range(len(texts))]
    replayed = np.array([[r["scores"][k] for k in live.labels] for r in got])
    expected = np.stack([live.scores(live.encode(t)) for t in texts])
    assert np.abs(replayed - expected).max() <= 1e-4


def _children(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


# A replay that starts a scoring process and dies while that process still loads its
# model (here a load that takes a minute): the orphan must notice, not outlive it.
_ORPHAN = """
import os, sys, time, multiprocessing as mp
from moderation.replay import scoring
from moderation.config import ClassifierSettings

def slow_load(settings):
    time.sleep(60)

def child():
    scoring.load = slow_load
    scoring.init(ClassifierSettings())

if __name__ == "__main__":
    p = mp.get_context("fork").Process(target=child)
    p.start()
    time.sleep(0.5)
    print(p.pid, flush=True)
    os._exit(0)
"""


def test_a_scoring_process_orphaned_while_it_loads_exits(tmp_path: Path) -> None:
    script = tmp_path / "orphan.py"
    script.write_text(_ORPHAN)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Read the child's pid and no further: the child holds the pipe while it lives.
    with subprocess.Popen(
        [sys.executable, str(script)], env=env, stdout=subprocess.PIPE
    ) as replay_process:
        assert replay_process.stdout is not None
        pid = int(replay_process.stdout.readline())
        replay_process.stdout.close()
        assert replay_process.wait(30) == 0
    try:
        assert wait_for(lambda: not _alive(pid), 10), "the orphan outlived its replay"
    finally:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)


def test_interrupted_run_resumes_without_gaps_or_repeats(tmp_path: Path) -> None:
    texts = [f"message number {i} about the game tonight" for i in range(3000)]
    src = tmp_path / "in.jsonl"
    write_jsonl(src, texts)
    out = tmp_path / "out.jsonl"
    ckpt = Path(str(out) + ".checkpoint.json")
    argv = [sys.executable, "-m", "moderation.cli", "replay", str(src), "--output", str(out)]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    # Rate-limited so the kill lands mid-run.
    proc = subprocess.Popen([*argv, "--rate", "600", "--no-progress"], env=env)
    try:
        assert wait_for(
            lambda: ckpt.exists() and orjson.loads(ckpt.read_bytes())["rows_done"] >= 600, 60
        )
        children = _children(proc.pid)
        assert children, "replay runs its scoring in child processes"
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        # Orphaned scoring processes notice and exit instead of idling forever.
        assert wait_for(lambda: not any(_alive(pid) for pid in children), 15)
    finally:
        if proc.poll() is None:
            proc.kill()
    done_before = orjson.loads(ckpt.read_bytes())["rows_done"]
    assert 0 < done_before < 3000
    # Rows past the checkpoint may have been half written: resume truncates them.
    subprocess.run([*argv, "--no-progress"], env=env, check=True, timeout=120)
    ids = [r["id"] for r in rows(out)]
    assert ids == [f"m{i}" for i in range(3000)]
    assert not ckpt.exists()


def test_csv_bad_rows_are_reported_with_line_numbers(tmp_path: Path) -> None:
    src = tmp_path / "in.csv"
    src.write_text(
        "id,text,label\n"
        'a,"hello, friend",0\n'
        'b,"a message\nover two lines",0\n'
        "c,,0\n"
        'd,"you are a worthless idiot",1\n'
        "e,fine,maybe\n"
        "f,too,many,cells\n"
        "g,   ,0\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.csv"
    summary = replay(Options([str(src)], str(out), workers=1, progress=False))
    with out.open(newline="", encoding="utf-8") as fh:
        got = list(csv.DictReader(fh))
    assert [r["id"] for r in got] == ["a", "b", "d"]
    assert got[2]["decision"] == "nudge" and float(got[2]["toxic"]) > 0.5
    errors = rows(tmp_path / "out.errors.jsonl")
    # Line numbers are the file's: the header is line 1 and "b" spans lines 3-4.
    assert [(e["ref"], e["error"]) for e in errors] == [
        ("in.csv:5", "empty_text"),
        ("in.csv:7", "bad_label"),
        ("in.csv:8", "extra_columns"),
        ("in.csv:9", "empty_text"),
    ]
    assert summary.bad == 4


def test_labelled_history_gets_a_quality_report(tmp_path: Path) -> None:
    toxic = ["you are a worthless idiot", "shut up, nobody likes you", "go die you moron"]
    benign = ["see you at practice", "thanks for the notes", "lol ok", "happy birthday!"]
    texts = toxic * 5 + benign * 10
    labels = [1] * 15 + [0] * 40
    src = tmp_path / "hist.jsonl"
    write_jsonl(src, texts, labels)
    out = tmp_path / "hist-out.jsonl"
    summary = replay(Options([str(src)], str(out), workers=1, progress=False))
    report = orjson.loads((tmp_path / "hist-out.report.json").read_bytes())
    (nudge,) = report
    decided = [r["decision"] == "nudge" for r in rows(out)]
    tp = sum(d and y for d, y in zip(decided, labels, strict=True))
    fp = sum(d and not y for d, y in zip(decided, labels, strict=True))
    assert nudge["confusion"]["tp"] == tp and nudge["confusion"]["fp"] == fp
    assert nudge["rows"] == 55 and nudge["positives"] == 15
    assert len(nudge["sweep"]) == 19
    png = tmp_path / "hist-out.pr.png"
    assert str(png) in summary.report_files and png.read_bytes()[:4] == b"\x89PNG"


def test_topic_between_offsets_to_a_topic(topics: Topics, tmp_path: Path) -> None:
    records = [(message(f"k{i}", f"hello number {i}"), f"k{i}".encode(), []) for i in range(30)]
    # One partition so offsets name messages 1:1.
    from moderation.kafka.admin import ensure_topics

    src_topic, out_topic = topics.input + "-one", topics.verdicts + "-replay"
    kafka = KafkaSettings(bootstrap=topics.bootstrap)
    asyncio.run(ensure_topics(kafka, {src_topic: 1, out_topic: 1}))
    asyncio.run(produce(topics.bootstrap, src_topic, records))
    opts = Options(
        [f"kafka:{src_topic}"],
        f"kafka:{out_topic}",
        kafka=kafka,
        start=("offset", 5),
        end=("offset", 25),
        workers=1,
        checkpoint=str(tmp_path / "ckpt.json"),
        progress=False,
    )
    summary = replay(opts)
    assert summary.scored == 20
    got = asyncio.run(read(topics.bootstrap, out_topic, 20, 20, settle_s=0.5))
    assert sorted(o.json()["id"] for o in got) == sorted(f"k{i}" for i in range(5, 25))


def test_refuses_to_clobber_or_mix_runs(tmp_path: Path) -> None:
    src = tmp_path / "in.jsonl"
    write_jsonl(src, ["hello"])
    out = tmp_path / "out.jsonl"
    out.write_text("precious\n")
    with pytest.raises(ReplayError, match="--overwrite"):
        replay(Options([str(src)], str(out), progress=False))
    Path(str(out) + ".checkpoint.json").write_bytes(orjson.dumps({"fingerprint": "other"}))
    with pytest.raises(ReplayError, match="different replay"):
        replay(Options([str(src)], str(out), progress=False))
    with pytest.raises(ReplayError, match="no such file"):
        replay(Options([str(tmp_path / "nope.jsonl")], str(tmp_path / "o.jsonl")))
    with pytest.raises(ReplayError, match=r"\.jsonl or \.csv"):
        replay(Options([str(src)], str(tmp_path / "o.parquet")))
    assert out.read_text() == "precious\n"


def test_missing_topic_is_a_clear_error(topics: Topics, tmp_path: Path) -> None:
    opts = Options(
        ["kafka:no-such-topic"],
        str(tmp_path / "o.jsonl"),
        kafka=KafkaSettings(bootstrap=topics.bootstrap),
        progress=False,
    )
    with pytest.raises(ReplayError, match=r"no-such-topic.*does not exist"):
        replay(opts)
