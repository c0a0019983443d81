"""Topic setup: what the embedded stack, the client's reply topic and the tests create."""

from __future__ import annotations

import asyncio

from moderation.config import KafkaSettings
from moderation.errors import TopicSetupError

# Metadata can lag topic creation by a moment: listed within 50 x 0.1 s or given up on.
_LISTED_POLLS = 50
_LISTED_POLL_S = 0.1


async def ensure_topics(kafka: KafkaSettings, topics: dict[str, int]) -> None:
    """Create topics (name -> partitions) that do not exist yet."""
    from aiokafka.admin import AIOKafkaAdminClient, NewTopic

    admin = AIOKafkaAdminClient(bootstrap_servers=kafka.bootstrap, **kafka.client_kwargs())
    await admin.start()
    try:
        existing = set(await admin.list_topics())
        new = [NewTopic(name, n, 1) for name, n in topics.items() if name not in existing]
        if new:
            resp = await admin.create_topics(new)
            for topic, code, message in resp.topic_errors:
                if code not in (0, 36):  # 36: already exists (a race with another instance)
                    raise TopicSetupError(f"cannot create topic {topic}: {message} ({code})")
        # Metadata can lag creation by a moment; wait until every topic is listed.
        for _ in range(_LISTED_POLLS):
            if set(topics) <= set(await admin.list_topics()):
                return
            await asyncio.sleep(_LISTED_POLL_S)
    finally:
        await admin.close()
