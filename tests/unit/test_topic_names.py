"""Topic names: one rule for configured topics, instance ids and reply topics."""

from __future__ import annotations

import pytest

from moderation.config import Source, client_settings, is_topic_name, worker_settings
from moderation.errors import ConfigError
from moderation.kafka.replies import reply_topic


@pytest.mark.parametrize("name", ["chat.verdicts", "a", "A-b_c.9", "x" * 249])
def test_legal_names(name: str) -> None:
    assert is_topic_name(name)


@pytest.mark.parametrize("name", ["", "x" * 250, "with space", "ünïcode", "a/b", "a\n"])
def test_illegal_names(name: str) -> None:
    assert not is_topic_name(name)


def test_reply_topic_is_checked_whole() -> None:
    assert reply_topic("chat.verdicts", "api-7") == "chat.verdicts.api-7"
    with pytest.raises(ValueError, match="instance id"):
        reply_topic("chat.verdicts", "api 7")
    with pytest.raises(ValueError, match="instance id"):
        reply_topic("chat.verdicts", "")
    with pytest.raises(ValueError, match="250"):
        reply_topic("chat.verdicts", "x" * 240)


def test_settings_use_the_same_rule() -> None:
    with pytest.raises(ConfigError, match="MODERATION_INPUT_TOPIC"):
        worker_settings(Source({"MODERATION_INPUT_TOPIC": "chät"}))
    with pytest.raises(ConfigError, match="MODERATION_INSTANCE_ID"):
        client_settings(Source({"MODERATION_INSTANCE_ID": "pod/7"}))
    assert client_settings(Source({"MODERATION_INSTANCE_ID": "pod-7"})).instance_id == "pod-7"
