"""Historical messages in: JSONL or CSV files, or a Kafka topic between two points.

Every input yields its rows in one fixed order (files line by line, a topic
partition by partition), so a row's sequence number names it across runs and a
checkpoint can say "the first N rows are done". A row that cannot be used becomes
a BadRow with its location and the reason; it never stops the run.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

import orjson

# The largest text a row may carry: the worker's limit, for the same reasons.
MAX_TEXT_CHARS = 16 * 1024


@dataclass(frozen=True, slots=True)
class Fields:
    """Which field or column holds what."""

    text: str = "text"
    id: str | None = "id"
    label: str | None = "label"


@dataclass(frozen=True, slots=True)
class Row:
    """One message to score; ``labels`` maps a label (or "nudge") to 0/1 when known."""

    ref: str
    id: str
    text: str
    labels: dict[str, int] | None = None


@dataclass(frozen=True, slots=True)
class BadRow:
    """A row that could not be used, and why."""

    ref: str
    error: str
    detail: str


Item = Row | BadRow


def parse_labels(value: Any) -> dict[str, int] | None:
    """0/1/true/false -> {"nudge": v}; {"toxic": 1, ...} -> per label; None -> None."""
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        return {"nudge": int(value)}
    if isinstance(value, int | float) and value in (0, 1):
        return {"nudge": int(value)}
    if isinstance(value, str):
        text = value.strip().lower()
        if text in ("0", "1", "true", "false"):
            return {"nudge": int(text in ("1", "true"))}
        if text.startswith("{"):
            return parse_labels(orjson.loads(text))
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if v in (0, 1, True, False):
                out[str(k)] = int(v)
            else:
                raise ValueError(f"label {k!r} must be 0 or 1, got {v!r}")
        return out
    raise ValueError(f"label must be 0/1, true/false or an object of them, got {value!r}")


def make_row(ref: str, obj: dict[str, Any], fields: Fields, fallback_id: str) -> Item:
    """A Row from one record's fields, or the BadRow saying what is wrong."""
    text = obj.get(fields.text)
    if text is None:
        return BadRow(ref, "missing_field", f"no {fields.text!r} field")
    if not isinstance(text, str):
        return BadRow(ref, "wrong_type", f"{fields.text!r} is {type(text).__name__}, not text")
    if len(text) > MAX_TEXT_CHARS:
        return BadRow(ref, "too_large", f"text of {len(text)} characters > {MAX_TEXT_CHARS}")
    raw_id = obj.get(fields.id) if fields.id else None
    mid = fallback_id if raw_id in (None, "") else str(raw_id)
    try:
        labels = parse_labels(obj.get(fields.label)) if fields.label else None
    except (ValueError, orjson.JSONDecodeError) as exc:
        return BadRow(ref, "bad_label", str(exc))
    return Row(ref, mid, text, labels)


def read_jsonl(path: Path, fields: Fields) -> Iterator[Item]:
    """One JSON object per line; blank lines are skipped but keep their numbers."""
    with path.open("rb") as fh:
        for n, line in enumerate(fh, 1):
            item = parse_json_line(f"{path.name}:{n}", line, fields)
            if item is not None:
                yield item


def parse_json_line(ref: str, line: bytes | str, fields: Fields) -> Item | None:
    """One JSONL line as a row or a bad row; None for a blank line."""
    if not line.strip():
        return None
    try:
        obj = orjson.loads(line)
    except orjson.JSONDecodeError:
        try:  # the standard library accepts escaped lone surrogates
            obj = json.loads(line.decode("utf-8") if isinstance(line, bytes) else line)
        except (UnicodeDecodeError, ValueError) as exc:
            return BadRow(ref, "invalid_json", str(exc)[:200])
    if not isinstance(obj, dict):
        return BadRow(ref, "not_an_object", f"line holds a {type(obj).__name__}")
    return make_row(ref, obj, fields, ref)


def read_csv(path: Path, fields: Fields) -> Iterator[Item]:
    """A CSV with a header row; line numbers are the file's (header is line 1)."""
    with path.open("rb") as raw:
        yield from csv_items(path.name, raw, fields)


def csv_items(name: str, raw: IO[bytes], fields: Fields) -> Iterator[Item]:
    """The rows of one CSV stream (header first), named ``name:line``."""
    fh = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", newline="")
    reader = csv.DictReader(fh)
    try:
        header = reader.fieldnames or []
    except UnicodeDecodeError as exc:
        yield BadRow(f"{name}:1", "undecodable", str(exc))
        return
    if fields.text not in header:
        yield BadRow(f"{name}:1", "missing_column", f"no {fields.text!r} column")
        return
    while True:
        start = reader.line_num + 1
        try:
            rec = next(reader)
        except StopIteration:
            return
        except (UnicodeDecodeError, csv.Error) as exc:
            yield BadRow(f"{name}:{start}", "unreadable", str(exc)[:200])
            return  # the stream position is unknown after a decode error
        ref = f"{name}:{start}"
        if None in rec:
            yield BadRow(ref, "extra_columns", f"{len(rec[None])} more cells than columns")
            continue
        yield make_row(ref, rec, fields, ref)


def read_file(path: Path, fields: Fields) -> Iterator[Item]:
    """By extension: .jsonl/.ndjson/.json or .csv."""
    suffix = path.suffix.lower()
    if suffix in (".jsonl", ".ndjson", ".json"):
        return read_jsonl(path, fields)
    if suffix == ".csv":
        return read_csv(path, fields)
    raise ValueError(f"{path}: unknown input format (use .jsonl or .csv)")


def count_rows(path: Path) -> int:
    """Lines that may hold a row (for the progress bar's total)."""
    with path.open("rb") as fh:
        n = sum(1 for line in fh if line.strip())
    return n - 1 if path.suffix.lower() == ".csv" else n


def parse_point(value: str | None) -> tuple[str, int] | None:
    """``offset:N``, an integer of epoch milliseconds, or an ISO-8601 time."""
    if value is None:
        return None
    if value.startswith("offset:"):
        return "offset", int(value.removeprefix("offset:"))
    if value.lstrip("-").isdigit():
        return "time", int(value)
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{value!r}: expected offset:N, epoch milliseconds or an ISO-8601 time"
        ) from None
    return "time", int(when.timestamp() * 1000)
