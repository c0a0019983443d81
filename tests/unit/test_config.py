import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from moderation.config import DEFAULT_THREADS, Source, classifier_settings, default_model_dir
from moderation.errors import ConfigError


def test_defaults_work_without_any_setting() -> None:
    s = classifier_settings(Source({}))
    assert s.threads == DEFAULT_THREADS
    assert s.model_dir == default_model_dir()
    assert (s.model_dir / "model.onnx").is_file()


def test_environment_wins_over_toml(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text("threads = 3\nmax_tokens = 64\nthresholds = { toxic = 0.7 }\n")
    s = classifier_settings(Source({"MODERATION_CONFIG": str(cfg), "MODERATION_THREADS": "1"}))
    assert (s.threads, s.max_tokens, dict(s.thresholds)) == (1, 64, {"toxic": 0.7})
    assert (s.spinning, s.spin_us) == (False, 0)
    spin = classifier_settings(Source({"MODERATION_SPINNING": "1", "MODERATION_SPIN_US": "3000"}))
    assert (spin.spinning, spin.spin_us) == (True, 3000)


@pytest.mark.parametrize(
    ("raw", "expected"), [(None, None), ("auto", None), (" AUTO ", None), ("0", 0), ("48", 48)]
)
def test_one_thread_up_to_is_timed_at_load_unless_a_length_is_given(
    raw: str | None, expected: int | None
) -> None:
    env = {} if raw is None else {"MODERATION_ONE_THREAD_UP_TO": raw}
    assert classifier_settings(Source(env)).one_thread_up_to == expected


@pytest.mark.parametrize(
    ("raw", "expected"), [(None, False), ("0", False), ("on", True), ("1", True)]
)
def test_huge_pages_are_off_unless_turned_on(raw: str | None, expected: bool) -> None:
    env = {} if raw is None else {"MODERATION_HUGE_PAGES": raw}
    assert classifier_settings(Source(env)).huge_pages is expected


# Switches on by default, each turned off by its variable: ASCII text tokenized in Python,
# and the threat head's further readings (docs/model.md, rules 102-120).
_ON_BY_DEFAULT = [
    ("ASCII_WORDPIECE", "ascii_wordpiece"),
    ("READ_IDIOMS", "read_idioms"),
    ("THREAT_PAST_FULL_STOP", "threat_past_full_stop"),
    ("THREAT_PAST_MENTIONS", "threat_past_mentions"),
    ("THREAT_PAST_INNER_MENTIONS", "threat_past_inner_mentions"),
    ("THREAT_PAST_CHAT_WORDS", "threat_past_chat_words"),
    ("THREAT_PAST_EMOJI", "threat_past_emoji"),
    ("THREAT_PAST_FINAL_MARKS", "threat_past_final_marks"),
    ("THREAT_SENTENCES_ALONE", "threat_sentences_alone"),
    ("THREAT_LINES_ALONE", "threat_lines_alone"),
    ("THREAT_SENTENCES_PAST_EMOJI", "threat_sentences_past_emoji"),
    ("THREAT_SENTENCES_PAST_COMMAS", "threat_sentences_past_commas"),
    ("THREAT_PAST_CLOSING_WORDS", "threat_past_closing_words"),
]


@pytest.mark.parametrize(("variable", "field"), _ON_BY_DEFAULT)
@pytest.mark.parametrize(
    ("raw", "expected"), [(None, True), ("1", True), ("yes", True), ("off", False), ("0", False)]
)
def test_switches_on_by_default_are_turned_off_by_their_variable(
    variable: str, field: str, raw: str | None, expected: bool
) -> None:
    env = {} if raw is None else {f"MODERATION_{variable}": raw}
    assert getattr(classifier_settings(Source(env)), field) is expected


@pytest.mark.parametrize(("raw", "expected"), [(None, 0.0001), ("0", 0.0), ("0.005", 0.005)])
def test_the_threat_reading_floor_reads_a_share(raw: str | None, expected: float) -> None:
    env = {} if raw is None else {"MODERATION_THREAT_READING_FLOOR": raw}
    assert classifier_settings(Source(env)).threat_reading_floor == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ("low", "MODERATION_THREAT_READING_FLOOR='low': expected a number"),
        ("1", "MODERATION_THREAT_READING_FLOOR=1.0: expected a number between 0 (inclusive) and 1"),
        ("-0.1", "between 0 (inclusive) and 1"),
    ],
)
def test_a_bad_threat_reading_floor_is_refused_by_name(raw: str, message: str) -> None:
    with pytest.raises(ConfigError, match=re.escape(message)):
        classifier_settings(Source({"MODERATION_THREAT_READING_FLOOR": raw}))


def test_one_thread_up_to_reads_toml_numbers(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text("one_thread_up_to = 32\n")
    s = classifier_settings(Source({"MODERATION_CONFIG": str(cfg)}))
    assert s.one_thread_up_to == 32


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MODERATION_THREADS": "four"}, "MODERATION_THREADS='four': expected an integer"),
        ({"MODERATION_THREADS": "0"}, "MODERATION_THREADS=0: expected 1..256"),
        ({"MODERATION_MAX_TOKENS": "100000"}, "MODERATION_MAX_TOKENS=100000"),
        ({"MODERATION_SPINNING": "maybe"}, "expected true or false"),
        ({"MODERATION_HUGE_PAGES": "2mb"}, "MODERATION_HUGE_PAGES='2mb': expected true or false"),
        ({"MODERATION_ASCII_WORDPIECE": "py"}, "ASCII_WORDPIECE='py': expected true or false"),
        ({"MODERATION_THREAT_PAST_FULL_STOP": "."}, "FULL_STOP='.': expected true or false"),
        ({"MODERATION_THREAT_PAST_MENTIONS": "@"}, "MENTIONS='@': expected true or false"),
        ({"MODERATION_SPIN_US": "-5"}, "MODERATION_SPIN_US=-5: expected 0..1000000"),
        ({"MODERATION_ONE_THREAD_UP_TO": "short"}, "expected auto or a token count"),
        ({"MODERATION_ONE_THREAD_UP_TO": "-1"}, "ONE_THREAD_UP_TO=-1: expected auto or 0..512"),
        ({"MODERATION_THRESHOLDS": "toxic"}, "'toxic' is not label=value"),
        ({"MODERATION_THRESHOLDS": "toxic=high"}, "is not a number"),
        ({"MODERATION_THRESHOLDS": "toxic=1.5"}, r"must lie in \[0, 1\]"),
        ({"MODERATION_CONFIG": "/nonexistent/m.toml"}, "cannot read"),
    ],
)
def test_bad_values_name_the_setting(env: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        classifier_settings(Source(env))


def test_broken_toml_is_reported(tmp_path: Path) -> None:
    cfg = tmp_path / "m.toml"
    cfg.write_text("threads = [")
    with pytest.raises(ConfigError, match="not valid TOML"):
        Source({"MODERATION_CONFIG": str(cfg)})


def test_worker_defaults_match_the_documented_contract() -> None:
    from moderation.config import worker_settings

    s = worker_settings(Source({}))
    assert (s.input_topic, s.verdict_topic, s.dlq_topic, s.group_id) == (
        "chat.messages",
        "chat.verdicts",
        "chat.messages.dlq",
        "moderation",
    )
    assert s.kafka.bootstrap is None  # embedded default
    assert s.fallback_decision == "allow" and s.budget_ms == 50
    assert s.fetch_max_wait_ms > 0
    assert s.long_lane_tokens == 0  # one inference lane unless asked (docs/benchmarks.md)
    lanes = worker_settings(
        Source(
            {
                "MODERATION_LONG_LANE_TOKENS": "64",
                "MODERATION_LONG_LANE_NICE": "10",
                "MODERATION_LONG_LANE_THREADS": "2",
            }
        )
    )
    assert lanes.decision.long_lane_threads == 2
    assert lanes.decision.long_lane_tokens == 64
    assert lanes.decision.long_lane_nice == 10


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MODERATION_KAFKA_BOOTSTRAP": "localhost"}, "'localhost' is not host:port"),
        ({"MODERATION_KAFKA_BOOTSTRAP": "a:1,b:99999"}, "'b:99999' is not host:port"),
        ({"MODERATION_INPUT_TOPIC": "bad topic!"}, "not a valid Kafka topic name"),
        ({"MODERATION_VERDICT_TOPIC": "chat.messages"}, "must differ"),
        ({"MODERATION_FALLBACK_DECISION": "block"}, "expected one of allow, nudge"),
        ({"MODERATION_BUDGET_MS": "0"}, "MODERATION_BUDGET_MS=0"),
        ({"MODERATION_FETCH_MAX_WAIT_MS": "0"}, "MODERATION_FETCH_MAX_WAIT_MS=0"),
        ({"MODERATION_LONG_LANE_TOKENS": "-1"}, "MODERATION_LONG_LANE_TOKENS=-1"),
        ({"MODERATION_LONG_LANE_TOKENS": "sixty"}, "expected an integer"),
        ({"MODERATION_LONG_LANE_NICE": "20"}, "MODERATION_LONG_LANE_NICE=20"),
        ({"MODERATION_KAFKA_SECURITY_PROTOCOL": "TLS"}, "expected one of PLAINTEXT"),
        ({"MODERATION_KAFKA_SECURITY_PROTOCOL": "SASL_SSL"}, "needs MODERATION_KAFKA_SASL"),
        (
            {
                "MODERATION_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                "MODERATION_KAFKA_SASL_MECHANISM": "DIGEST-MD5",
                "MODERATION_KAFKA_SASL_USERNAME": "u",
                "MODERATION_KAFKA_SASL_PASSWORD": "p",
            },
            "expected one of PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, GSSAPI",
        ),
        (
            {
                "MODERATION_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                "MODERATION_KAFKA_SASL_MECHANISM": "OAUTHBEARER",
            },
            "needs MODERATION_KAFKA_OAUTH_TOKEN_FILE or MODERATION_KAFKA_OAUTH_TOKEN_URL",
        ),
        (
            {
                "MODERATION_KAFKA_SECURITY_PROTOCOL": "SASL_SSL",
                "MODERATION_KAFKA_SASL_MECHANISM": "OAUTHBEARER",
                "MODERATION_KAFKA_OAUTH_TOKEN_URL": "https://idp.example/token",
            },
            "needs MODERATION_KAFKA_OAUTH_CLIENT_ID and MODERATION_KAFKA_OAUTH_CLIENT_SECRET",
        ),
        ({"MODERATION_KAFKA_PRODUCER_OPTIONS": "{not json"}, "KAFKA_PRODUCER_OPTIONS: not a JSON"),
        ({"MODERATION_KAFKA_PRODUCER_OPTIONS": "[1]"}, "expected a JSON object"),
        (
            {"MODERATION_KAFKA_PRODUCER_OPTIONS": '{"compresion_type": "lz4"}'},
            "'compresion_type' is not an aiokafka producer option",
        ),
        (
            {"MODERATION_KAFKA_PRODUCER_OPTIONS": '{"acks": 1}'},
            "'acks' is set by moderation itself",
        ),
        (
            {"MODERATION_KAFKA_CONSUMER_OPTIONS": '{"enable_auto_commit": true}'},
            "'enable_auto_commit' is set by moderation itself",
        ),
        ({"MODERATION_KAFKA_IDEMPOTENCE": "perhaps"}, "expected true or false"),
        ({"MODERATION_KAFKA_SSL_CAFILE": "/nonexistent.pem"}, "no such file"),
    ],
)
def test_bad_worker_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    from moderation.config import worker_settings

    with pytest.raises(ConfigError, match=message):
        worker_settings(Source(env))


def test_sasl_scram_passes_through_to_aiokafka() -> None:
    from moderation.config import worker_settings

    s = worker_settings(
        Source(
            {
                "MODERATION_KAFKA_BOOTSTRAP": "k1:9093,k2:9093",
                "MODERATION_KAFKA_SECURITY_PROTOCOL": "sasl_plaintext",
                "MODERATION_KAFKA_SASL_MECHANISM": "scram-sha-512",
                "MODERATION_KAFKA_SASL_USERNAME": "svc",
                "MODERATION_KAFKA_SASL_PASSWORD": "pw",
            }
        )
    )
    assert s.kafka.bootstrap == "k1:9093,k2:9093"
    assert s.kafka.client_kwargs() == {
        "security_protocol": "SASL_PLAINTEXT",
        "client_id": s.kafka.client_id,
        "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "svc",
        "sasl_plain_password": "pw",
    }
    assert "pw" not in repr(s)  # secrets stay out of logs


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"MODERATION_REDIS_URL": "http://x"}, "must start with redis://"),
        ({"MODERATION_CACHE_NAMESPACE": "a b"}, "no spaces"),
        ({"MODERATION_CACHE_TTL_S": "0"}, "MODERATION_CACHE_TTL_S=0"),
        ({"MODERATION_CACHE_LOCAL_ENTRIES": "-1"}, "MODERATION_CACHE_LOCAL_ENTRIES=-1"),
    ],
)
def test_bad_cache_settings_name_the_variable(env: dict[str, str], message: str) -> None:
    from moderation.config import cache_settings

    with pytest.raises(ConfigError, match=message):
        cache_settings(Source(env))


def test_redis_password_stays_out_of_repr() -> None:
    from moderation.config import cache_settings

    s = cache_settings(Source({"MODERATION_REDIS_URL": "redis://u:secret@h:6379/0"}))
    assert s.redis_url and "secret" not in repr(s)


def test_platform_kafka_settings_reach_the_clients(tmp_path: Path) -> None:
    """client.id, idempotence and further client options, from env or TOML tables."""
    from moderation.config import worker_settings
    from moderation.kafka.clients import consumer_kwargs, producer

    cfg = tmp_path / "m.toml"
    cfg.write_text(
        'kafka_bootstrap = "k:9092"\n'
        "kafka_idempotence = true\n"
        '[kafka_producer_options]\ncompression_type = "gzip"\nmax_request_size = 2097152\n'
        "[kafka_consumer_options]\nmax_partition_fetch_bytes = 65536\n"
    )
    s = worker_settings(
        Source({"MODERATION_CONFIG": str(cfg), "MODERATION_KAFKA_CLIENT_ID": "mod-pod-7"})
    )
    k = s.kafka
    assert (k.client_id, k.idempotence) == ("mod-pod-7", True)

    async def made() -> Any:
        p = producer(k)
        await p.stop()  # never started: releases what the constructor took
        return p

    p = asyncio.run(made())
    assert p.client._client_id == "mod-pod-7"
    assert p._txn_manager is not None  # aiokafka makes one only for idempotence
    assert p._compression_type == "gzip" and p._max_request_size == 2097152
    kw = consumer_kwargs(k, group_id="g", enable_auto_commit=False)
    assert kw["max_partition_fetch_bytes"] == 65536 and kw["client_id"] == "mod-pod-7"
    assert kw["group_id"] == "g" and kw["enable_auto_commit"] is False


def test_default_client_id_names_the_host() -> None:
    import socket

    from moderation.config import kafka_settings

    assert kafka_settings(Source({})).client_id == f"moderation-{socket.gethostname()}"


def test_oauthbearer_from_a_token_file(tmp_path: Path) -> None:
    from moderation.config import worker_settings
    from moderation.kafka.auth import FileTokenProvider, TokenError

    token = tmp_path / "token"
    token.write_text("eyJ.header.sig\n")
    s = worker_settings(
        Source(
            {
                "MODERATION_KAFKA_SECURITY_PROTOCOL": "SASL_PLAINTEXT",
                "MODERATION_KAFKA_SASL_MECHANISM": "OAUTHBEARER",
                "MODERATION_KAFKA_OAUTH_TOKEN_FILE": str(token),
            }
        )
    )
    provider = s.kafka.client_kwargs()["sasl_oauth_token_provider"]
    assert isinstance(provider, FileTokenProvider)
    assert asyncio.run(provider.token()) == "eyJ.header.sig"
    token.write_text("rotated")  # re-read on every connection
    assert asyncio.run(provider.token()) == "rotated"
    token.unlink()
    with pytest.raises(TokenError, match=r"OAuth token file .*token"):
        asyncio.run(provider.token())


@pytest.mark.parametrize(("raw", "expected"), [(None, 5), ("0", 0), ("3", 3)])
def test_the_asides_a_sentence_is_read_alone_beside_are_a_word_count(
    raw: str | None, expected: int
) -> None:
    env = {} if raw is None else {"MODERATION_THREAT_SENTENCE_ASIDE_WORDS": raw}
    assert classifier_settings(Source(env)).threat_sentence_aside_words == expected


def test_a_negative_aside_word_count_names_its_variable() -> None:
    with pytest.raises(ConfigError, match="MODERATION_THREAT_SENTENCE_ASIDE_WORDS"):
        classifier_settings(Source({"MODERATION_THREAT_SENTENCE_ASIDE_WORDS": "-1"}))
