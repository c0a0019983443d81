"""The Spark executor's row handling, without Spark: Arrow batches in, native replay rows out."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from moderation.replay.sources import BadRow, Fields, Row, parse_json_line, read_csv, read_jsonl

pa = pytest.importorskip("pyarrow", reason="the spark extra is not installed")

from moderation.spark.executor import (  # noqa: E402
    INPUT_FIELDS,
    _replay_items,
    parse_csv_files,
)

CSV = (
    b"id,text,label\n"
    b'a,"two\nlines",1\n'
    b"b,plain,0\n"
    b'c,"x",1,extra\n'
    b"d,,0\n"
    b'e,"quoted, comma",true\n'
    b"f,late,maybe\n"
)


def _as_pairs(items: list[BadRow | Row]) -> list[tuple[str, ...]]:
    return [
        (i.ref, i.error, i.detail)
        if isinstance(i, BadRow)
        else (i.ref, i.id, i.text, str(i.labels))
        for i in items
    ]


def test_csv_files_read_as_the_native_replay_reads_them(tmp_path: Path) -> None:
    (tmp_path / "h.csv").write_bytes(CSV)
    native = list(read_csv(tmp_path / "h.csv", Fields()))
    files = pa.record_batch({"path": ["file:/lake/h.csv"], "content": [CSV]})
    (batch,) = list(parse_csv_files(Fields(), iter([files])))
    assert batch.schema == pa.schema(INPUT_FIELDS)
    spark_side = _replay_items(batch, Fields())
    assert _as_pairs(spark_side) == _as_pairs(native)
    assert [i.ref for i in native] == [
        "h.csv:2",
        "h.csv:4",
        "h.csv:5",
        "h.csv:6",
        "h.csv:7",
        "h.csv:8",
    ]


def test_csv_without_the_text_column_is_one_bad_row() -> None:
    files = pa.record_batch({"path": ["/x/k.csv"], "content": [b"id,body\n1,hi\n"]})
    (batch,) = list(parse_csv_files(Fields(), iter([files])))
    (item,) = _replay_items(batch, Fields())
    assert isinstance(item, BadRow) and (item.ref, item.error) == ("k.csv:1", "missing_column")


def test_jsonl_lines_read_as_the_native_replay_reads_them(tmp_path: Path) -> None:
    lines = [b'{"id": 1, "text": "hi", "label": 1}', b"", b"{oops", b"[]", b'{"text": null}']
    lines += [b'{"text": "\\ud800 lone"}', b'{"text": "x", "label": {"toxic": 2}}']
    (tmp_path / "h.jsonl").write_bytes(b"\n".join(lines) + b"\n")
    native = list(read_jsonl(tmp_path / "h.jsonl", Fields()))
    ours = [
        parse_json_line(f"h.jsonl:{n}", line.decode(), Fields()) for n, line in enumerate(lines, 1)
    ]
    assert _as_pairs([i for i in ours if i is not None]) == _as_pairs(native)
    assert ours[1] is None  # a blank line is skipped and unnamed


def test_parquet_rows_keep_label_types_and_fall_back_to_the_ref_for_ids() -> None:
    batch = pa.RecordBatch.from_pylist(
        [
            {"ref": "t#1", "text": "hi", "id": None, "label": '{"v":1.0}'},
            {"ref": "t#2", "text": "hi", "id": "k", "label": '{"v":0.5}'},
            {"ref": "t#3", "text": None, "id": "z", "label": None},
            {"ref": "t#4", "text": "x", "id": "e", "label": None, "error": "e1", "detail": "d"},
        ],
        schema=pa.schema(INPUT_FIELDS),
    )
    a, b, c, d = _replay_items(batch, Fields())
    assert isinstance(a, Row) and (a.id, a.labels) == ("t#1", {"nudge": 1})
    assert isinstance(b, BadRow) and b.error == "bad_label"
    assert isinstance(c, BadRow) and c.error == "missing_field"
    assert isinstance(d, BadRow) and (d.error, d.detail) == ("e1", "d")


def test_a_stream_reader_and_the_file_reader_agree(tmp_path: Path) -> None:
    from moderation.replay.sources import csv_items

    (tmp_path / "s.csv").write_bytes(CSV)
    assert _as_pairs(list(csv_items("s.csv", io.BytesIO(CSV), Fields()))) == _as_pairs(
        list(read_csv(tmp_path / "s.csv", Fields()))
    )
