"""Model roll-outs without downtime: a new model swapped in under traffic, a broken one
refused, SIGHUP doing the same for a running `moderation worker`."""

from __future__ import annotations

import asyncio
import json
import shutil
import signal
from collections import Counter
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaProducer

from moderation import metrics
from moderation.classifier import load_manifest
from moderation.config import CacheSettings, ClassifierSettings, default_model_dir
from moderation.embedded import EmbeddedRedis
from moderation.idioms import model_id as idioms_id
from moderation.threat_reading import Readings
from moderation.threat_reading import model_id as read_threat_id
from tests.integration.conftest import wait_for
from tests.integration.kafka_io import message, produce, read, unique_ids
from tests.integration.workers import running
from tests.topics import Topics

NEW_ID = "moderation-minilm-int8@swap-test-01"
PROBE = "see you at the game tonight, bring snacks"


def copy_model(dst: Path, model_id: str) -> Path:
    """The shipped model under another id: same weights, so the same scores."""
    shutil.copytree(default_model_dir(), dst)
    manifest = json.loads((dst / "model.json").read_text())
    manifest["id"] = model_id
    (dst / "model.json").write_text(json.dumps(manifest))
    return dst


def broken_model(dst: Path) -> Path:
    shutil.copytree(default_model_dir(), dst)
    (dst / "model.onnx").write_bytes(b"not an onnx graph")
    return dst


def test_a_model_swapped_under_traffic_loses_nothing_and_a_broken_one_is_refused(
    topics: Topics, model: Any, tmp_path: Path, redis_server: EmbeddedRedis
) -> None:
    new_dir = copy_model(tmp_path / "new", NEW_ID)
    bad_dir = broken_model(tmp_path / "broken")
    # Bursts faster than the model answers, from before the swap until after both:
    # the swap lands while messages are queued on the old model's thread, which must
    # answer them all before it stops.
    burst = 40

    async def scenario() -> tuple[list[Any], list[bool], str, str, int, int]:
        # Redis only (no local tier): every lookup awaits, so a message is between
        # taking the live model and reaching its thread when the swap comes.
        cache = CacheSettings(redis_url=redis_server.url, local_entries=0, redis_timeout_ms=200)
        async with running(topics.settings(budget_ms=60_000), model, cache=cache) as w:
            old_id = w.moderator.model_id
            swaps: list[bool] = []
            sent_by_swap: list[int] = []  # messages acknowledged when each swap returned
            sent = 0
            producer = AIOKafkaProducer(bootstrap_servers=topics.bootstrap, acks="all")
            await producer.start()

            async def send(text: str) -> Any:
                nonlocal sent
                sent += 1
                return await producer.send(topics.input, message(f"s{sent - 1}", text))

            async def traffic() -> None:
                after = 0
                while after < 3:  # three more bursts once both swaps are done
                    acks = [await send(f"message {sent} about the weekend") for _ in range(burst)]
                    await asyncio.gather(*acks)
                    after += len(swaps) == 2
                    await asyncio.sleep(0.05)

            async def roll_out() -> None:
                await asyncio.sleep(0.3)  # inside the traffic
                for d in (new_dir, bad_dir):
                    swaps.append(await w.moderator.swap(ClassifierSettings(model_dir=d, threads=1)))
                    sent_by_swap.append(sent)

            try:
                await (await send(PROBE))
                await asyncio.gather(traffic(), roll_out())
                await (await send(PROBE))
            finally:
                await producer.stop()
            out = await read(topics.bootstrap, topics.verdicts, sent, 120, count=unique_ids)
            info = metrics.MODEL_INFO._value["id"]  # what /metrics shows
            return out, swaps, old_id, info, sent_by_swap[0], sent

    out, swaps, old_id, info, sent_by_swap, n = asyncio.run(scenario())
    verdicts = {o.json()["message_id"]: o.json() for o in out}
    assert swaps == [True, False]  # the broken directory was refused
    assert set(verdicts) == {f"s{i}" for i in range(n)}  # nothing lost
    # Nothing answered by the fallback because of the swap: every one by a model; and
    # the probe sent again at the end is no cache hit, its key having the new model id.
    reasons = Counter(v["reason"] for v in verdicts.values())
    assert set(reasons) == {"model"}, reasons
    models = [verdicts[f"s{i}"]["model"] for i in range(n)]
    # The new file as the classifier runs it, idioms read and with its threat head's
    # second readings.
    d = ClassifierSettings()
    new = read_threat_id(idioms_id(NEW_ID, d.normalize, d.read_idioms), ("threat",), Readings.of(d))
    assert new != NEW_ID
    assert models[0] == old_id and models[-1] == new and info == new
    # Every message sent once the swap was done went to the new model (partitions are
    # consumed side by side, so earlier ones may go either way)...
    assert sent_by_swap < n and models.index(new) > 0
    assert all(m == new for m in models[sent_by_swap:])
    # ...and the same weights under the new id score the same text the same.
    first, last = verdicts["s0"], verdicts[f"s{n - 1}"]
    assert first["scores"] == last["scores"] and first["model"] != last["model"]


def test_sighup_reloads_the_model_named_in_the_config_file(
    topics: Topics, spawn: Any, tmp_path: Path
) -> None:
    new_dir = copy_model(tmp_path / "new", NEW_ID)
    config = tmp_path / "moderation.toml"
    config.write_text(f'model_dir = "{default_model_dir()}"\n')
    worker = spawn(topics.env(MODERATION_CONFIG=str(config)))
    log = tmp_path / "worker-0.log"
    assert wait_for(lambda: "partitions assigned" in log.read_text(errors="replace"), 60)

    def answer(mid: str, nth: int) -> dict[str, Any]:
        asyncio.run(produce(topics.bootstrap, topics.input, [(message(mid, PROBE), None, [])]))
        out = asyncio.run(read(topics.bootstrap, topics.verdicts, nth, 30, count=unique_ids))
        return next(o.json() for o in out if o.json()["message_id"] == mid)

    before = answer("before", 1)
    config.write_text(f'model_dir = "{new_dir}"\n')
    worker.signal(signal.SIGHUP)
    assert wait_for(lambda: "model swapped" in log.read_text(errors="replace"), 60)
    after = answer("after", 2)
    # The same screen (if one is on by default on this CPU) in front of the new model.
    shipped_id = load_manifest(default_model_dir())["id"]
    assert before["model"].startswith(shipped_id)
    assert after["model"] == before["model"].replace(shipped_id, NEW_ID, 1)
    assert after["scores"] == before["scores"]
    worker.signal(signal.SIGTERM)
    assert worker.wait(20) == 0
