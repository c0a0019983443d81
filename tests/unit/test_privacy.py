import hashlib

from moderation.privacy import text_sha256


def test_hash_is_of_the_utf8_bytes() -> None:
    assert text_sha256("héllo") == hashlib.sha256("héllo".encode()).hexdigest()


def test_undecodable_bytes_hash_as_they_arrived() -> None:
    raw = b"bad \xff byte"
    text = raw.decode("utf-8", "surrogateescape")
    assert text_sha256(text) == hashlib.sha256(raw).hexdigest()


def test_lone_surrogate_from_json_still_hashes() -> None:
    # JSON's "\ud800" is no byte that arrived: it hashes as its surrogate-pass encoding,
    # distinct from both neighbours' hashes and from the replacement character's.
    expected = hashlib.sha256(b"x\xed\xa0\x80y").hexdigest()
    assert text_sha256("x\ud800y") == expected
    assert expected not in (text_sha256("xy"), text_sha256("x\ufffdy"))
