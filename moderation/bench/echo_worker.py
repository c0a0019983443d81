"""The broker floor: the worker's own consume -> produce -> commit path with no model.

`python -m moderation.bench.echo_worker` runs like `moderation worker` but answers
every message at once with an empty-score verdict, so the end-to-end benchmark can
subtract what Kafka and the client path cost from what the worker adds.
"""

from __future__ import annotations

import asyncio
import signal
import time
from typing import Any

from moderation.app import load_classifier
from moderation.config import Source, classifier_settings, worker_settings
from moderation.schema import InvalidRecord, Verdict, decode_message
from moderation.worker import Outcome, Worker


class EchoWorker(Worker):
    """Same loop, same producer and commits; ``decide`` skips tokenizer and model."""

    async def decide(self, record: Any) -> Outcome:
        try:
            msg = decode_message(record.value, self.settings.max_text_bytes)
        except InvalidRecord as bad:
            return Outcome(None, bad)
        t0 = msg.sent_at_ms if msg.sent_at_ms is not None else record.timestamp
        return Outcome(Verdict(msg.id, "allow", "model", "echo", time.time() * 1000 - t0))


async def _main() -> None:
    src = Source()
    classifier, policy = load_classifier(classifier_settings(src))
    worker = EchoWorker(worker_settings(src), classifier, policy)
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, worker.request_stop)
    await worker.run()


if __name__ == "__main__":
    asyncio.run(_main())
