import hashlib

from moderation.privacy import text_sha256


def test_hash_is_of_the_utf8_bytes() -> None:
    assert text_sha256("héllo") == hashlib.sha256("héllo".encode()).hexdigest()


def test_undecodable_bytes_hash_as_they_arrived() -> None:
    raw = b"bad \xff byte"
    text = raw.decode("utf-8", "surrogateescape")
    assert text_sha256(text) == hashlib.sha256(raw).hexdigest()


def test_lone_surrogate_from_json_still_hashes() -> None:
    assert len(text_sha256("x\ud800y")) == 64
