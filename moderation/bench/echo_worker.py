"""The broker floor: the worker's own consume -> produce -> commit path with no model.

`python -m moderation.bench.echo_worker` runs like `moderation worker` but answers
every message at once with an empty-score verdict, so the end-to-end benchmark can
subtract what Kafka and the client path cost from what the worker adds.
"""

from __future__ import annotations

import asyncio
import time

from moderation.app import running
from moderation.moderator import Moderator, Outcome
from moderation.schema import ChatMessage, Verdict


class EchoModerator(Moderator):
    """Same worker, loop, producer and commits; ``decide`` skips tokenizer and model."""

    async def decide(self, msg: ChatMessage, received_ms: float | None = None) -> Outcome:
        t0 = msg.sent_at_ms if msg.sent_at_ms is not None else received_ms or time.time() * 1000
        return Outcome(Verdict(msg.id, "allow", "model", "echo", time.time() * 1000 - t0))


async def _main() -> None:
    async with running(moderator_class=EchoModerator, signals=True, ready_timeout_s=None) as app:
        await app.task


if __name__ == "__main__":
    asyncio.run(_main())
