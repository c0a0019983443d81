"""Replay input from a Kafka topic between two points, partition by partition.

Bounds are offsets (``offset:N``) or times (epoch ms or ISO-8601, resolved with
Kafka's offsets-for-times). The end is exclusive and fixed when the read starts, so
messages arriving meanwhile are not chased. Partitions are read in order, one after
another, so every run sees the same sequence and a checkpoint's row count is exact.
Records are decoded exactly as the worker decodes them.
"""

from __future__ import annotations

import asyncio
import queue
import threading
from collections.abc import Iterator
from typing import Any

import orjson
from aiokafka import AIOKafkaConsumer
from aiokafka.structs import TopicPartition

from moderation.config import KafkaSettings
from moderation.kafka.clients import consumer_kwargs
from moderation.replay.sources import BadRow, Fields, Item, Row, parse_labels
from moderation.schema import InvalidRecord, decode_message

_END = object()


async def _bounds(
    consumer: AIOKafkaConsumer,
    tps: list[TopicPartition],
    start: tuple[str, int] | None,
    end: tuple[str, int] | None,
) -> dict[TopicPartition, tuple[int, int]]:
    first = await consumer.beginning_offsets(tps)
    listed = await consumer.end_offsets(tps)
    last = {tp: max(listed[tp], await _high_water(consumer, tp, first[tp])) for tp in tps}

    async def resolve(point: tuple[str, int] | None, default: dict[TopicPartition, int]) -> Any:
        if point is None:
            return default
        kind, value = point
        if kind == "offset":
            return {tp: min(max(value, first[tp]), last[tp]) for tp in tps}
        found = await consumer.offsets_for_times(dict.fromkeys(tps, value))
        return {tp: (found[tp].offset if found[tp] else last[tp]) for tp in tps}

    lo = await resolve(start, first)
    hi = await resolve(end, last)
    return {tp: (lo[tp], max(lo[tp], hi[tp])) for tp in tps}


async def _high_water(consumer: AIOKafkaConsumer, tp: TopicPartition, first: int) -> int:
    """The partition's high watermark as a fetch reports it.

    tansu (our test broker) answers ListOffsets(latest) with a wrong, smaller value;
    a fetch's high watermark is right on both it and Apache Kafka, and the larger of
    the two is always safe as an exclusive end.
    """
    consumer.assign([tp])
    consumer.seek(tp, first)
    await consumer.getmany(tp, timeout_ms=1000, max_records=1)
    return consumer.highwater(tp) or 0


def _item(record: Any, fields: Fields) -> Item:
    ref = f"{record.topic}/{record.partition}@{record.offset}"
    try:
        msg = decode_message(record.value, 16 * 1024)
    except InvalidRecord as bad:
        return BadRow(ref, bad.kind, bad.detail)
    labels = None
    if fields.label:
        try:
            labels = parse_labels(orjson.loads(record.value).get(fields.label))
        except (ValueError, orjson.JSONDecodeError) as exc:
            return BadRow(ref, "bad_label", str(exc))
    return Row(ref, msg.id, msg.text, labels)


async def _read(
    kafka: KafkaSettings,
    topic: str,
    start: tuple[str, int] | None,
    end: tuple[str, int] | None,
    fields: Fields,
    out: queue.Queue[Any],
    sizes: list[int],
) -> None:
    consumer = AIOKafkaConsumer(**consumer_kwargs(kafka, group_id=None, enable_auto_commit=False))
    await consumer.start()
    try:
        known = await consumer.topics()  # a metadata round trip
        parts = consumer.partitions_for_topic(topic) if topic in known else None
        if not parts:
            raise ValueError(f"topic {topic!r} does not exist")
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        bounds = await _bounds(consumer, tps, start, end)
        sizes.append(sum(hi - lo for lo, hi in bounds.values()))
        for tp in tps:
            lo, hi = bounds[tp]
            if lo >= hi:
                continue
            consumer.assign([tp])
            consumer.seek(tp, lo)
            position = lo
            while position < hi:
                batch = await consumer.getmany(tp, timeout_ms=1000, max_records=500)
                for record in batch.get(tp, []):
                    if record.offset >= hi:
                        position = hi
                        break
                    await asyncio.to_thread(out.put, _item(record, fields))
                    position = record.offset + 1
    finally:
        await consumer.stop()


def read_topic(
    kafka: KafkaSettings,
    topic: str,
    start: tuple[str, int] | None,
    end: tuple[str, int] | None,
    fields: Fields,
) -> tuple[Iterator[Item], int]:
    """(rows, how many records lie between the bounds)."""
    out: queue.Queue[Any] = queue.Queue(maxsize=10_000)
    sizes: list[int] = []
    errors: list[BaseException] = []
    ready = threading.Event()

    def run() -> None:
        try:
            asyncio.run(_read(kafka, topic, start, end, fields, out, sizes))
        except BaseException as exc:  # handed to the reading side
            errors.append(exc)
        finally:
            ready.set()
            out.put(_END)

    thread = threading.Thread(target=run, name=f"replay-read-{topic}", daemon=True)
    thread.start()
    while not sizes and not ready.is_set():
        ready.wait(0.05)
    if errors:
        raise errors[0]

    def items() -> Iterator[Item]:
        while True:
            item = out.get()
            if item is _END:
                if errors:
                    raise errors[0]
                return
            yield item

    return items(), sizes[0] if sizes else 0
