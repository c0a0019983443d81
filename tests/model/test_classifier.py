"""The shipped model through the classifier: shapes, bad input, batching equivalence."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from moderation.classifier import PREFIX_CHARS_PER_TOKEN, Classifier, Encoded, load_manifest
from moderation.config import ClassifierSettings, default_model_dir
from moderation.errors import EmptyTextError, ModelLoadError
from moderation.policy import Policy
from moderation.threat_reading import Readings
from moderation.threat_reading import model_id as read_threat_id


def test_scores_cover_every_label_and_lie_in_unit_interval(classifier: Classifier) -> None:
    result = classifier.classify("hey, are we still on for lunch tomorrow?")
    assert set(result.scores) == set(classifier.labels)
    assert "toxic" in result.scores
    assert all(0.0 <= v <= 1.0 for v in result.scores.values())
    # The shipped file's id, read with idioms, and which second readings its threat head
    # makes by default.
    d = ClassifierSettings()
    assert result.model_id == read_threat_id(
        load_manifest(default_model_dir())["id"] + "+idioms:22",
        classifier.labels,
        Readings.of(d),
    )
    assert d.threat_past_full_stop and classifier.threat_past_full_stop
    assert d.read_idioms and classifier.reads_idioms
    assert result.tokens == 12 and not result.truncated


def test_the_model_tells_abuse_from_chat(classifier: Classifier) -> None:
    policy = Policy(classifier.manifest["thresholds"])
    benign = [
        "see you at practice tomorrow!",
        "thanks, that recipe was great",
        "what time does the movie start?",
    ]
    abusive = [
        "you are a worthless piece of shit",
        "shut up you stupid idiot",
        "go kill yourself, nobody likes you",
    ]
    assert [policy.decide(classifier.classify(t).scores) for t in benign] == ["allow"] * 3
    assert [policy.decide(classifier.classify(t).scores) for t in abusive] == ["nudge"] * 3


def test_no_padding_the_tensor_is_as_long_as_the_message(classifier: Classifier) -> None:
    assert classifier.encode("hi").tokens == 3
    assert classifier.encode("hi " * 10).tokens == 12


def test_a_feed_is_the_message_alone_and_scores_as_the_classifier_does(
    classifier: Classifier,
) -> None:
    encoded = classifier.encode("see you at the gym tomorrow")
    feed = encoded.feed()
    assert feed["input_ids"].shape == feed["attention_mask"].shape == (1, encoded.tokens)
    assert feed["attention_mask"].min() == 1
    logits = classifier._session.run(None, feed)[0][0]
    assert np.allclose(classifier._activate(logits), classifier.scores(encoded))


@pytest.mark.parametrize("text", ["", "   \t\n ", "\u200b\u200b\u200d", "\x00\x01\x02"])
def test_empty_or_invisible_text_is_a_specific_error(classifier: Classifier, text: str) -> None:
    with pytest.raises(EmptyTextError, match="empty or holds only whitespace"):
        classifier.classify(text)


def test_text_over_the_token_limit_is_truncated(classifier: Classifier) -> None:
    result = classifier.classify("you are so kind and helpful " * 100)
    assert result.tokens == classifier.max_tokens
    assert result.truncated


def test_one_megabyte_is_answered_and_bounded(classifier: Classifier) -> None:
    result = classifier.classify("a" * 20 + " hello" * 200_000)
    assert result.tokens == classifier.max_tokens and result.truncated
    one_word = classifier.classify("x" * 1_000_000)  # a single 1 MB "word": [UNK]
    assert one_word.truncated and one_word.tokens == 3


@pytest.mark.parametrize(
    "text",
    [
        "lone \ud800 surrogate",
        "\udcff\udcfe from undecodable bytes",
        "pair \U0001f600 and emoji only: 😀🤬",
        "😀😀😀",
        "e\u0301\u0301\u0301 zalgo t\u0336\u0334e\u0335xt",
        "i d\u200bi\u200bo\u200bt",
        "ＦＵＬＬＷＩＤＴＨ letters",
        "\ufeffbom and \u202eright-to-left override",
    ],
)
def test_unusual_unicode_gets_a_result(classifier: Classifier, text: str) -> None:
    result = classifier.classify(text)
    assert result.tokens >= 3
    assert all(np.isfinite(v) for v in result.scores.values())


def test_zero_width_evasion_reads_like_the_plain_word(classifier: Classifier) -> None:
    plain = classifier.encode("you idiot").ids
    assert np.array_equal(classifier.encode("you i\u200bd\u200bi\u200bo\u200bt").ids, plain)


def test_fullwidth_letters_fold_to_ascii(classifier: Classifier) -> None:
    assert classifier.manifest.get("tokenizer_nfkc") is True
    assert np.array_equal(classifier.encode("ｉｄｉｏｔ").ids, classifier.encode("idiot").ids)


def test_batch_of_one_is_deterministic_and_stateless(classifier: Classifier) -> None:
    e = classifier.encode("you absolute clown")
    first = classifier.scores(e)
    classifier.scores(classifier.encode("something else entirely, and much longer " * 5))
    assert np.array_equal(classifier.scores(e), first)


def test_batch_paths_agree_with_batch_of_one_on_identical_rows(classifier: Classifier) -> None:
    # Dynamic int8 takes one activation scale per tensor: rows of a batch influence
    # each other unless they are identical. Identical rows must reproduce the single.
    e = classifier.encode("you absolute clown")
    single = classifier.scores(e)
    np.testing.assert_allclose(classifier.scores_same_length([e, e, e]), [single] * 3, atol=1e-6)
    np.testing.assert_allclose(classifier.scores_padded([e, e]), [single] * 2, atol=1e-6)


def test_padded_batch_masks_padding(classifier: Classifier) -> None:
    short, long = classifier.encode("hi there"), classifier.encode("hi there " * 20)
    rows = classifier.scores_padded([short, long])
    assert rows.shape == (2, len(classifier.labels))
    np.testing.assert_allclose(rows[0], classifier.scores(short), atol=0.05)


def test_threads_are_clamped_to_usable_cores(caplog: pytest.LogCaptureFixture) -> None:
    import os

    cores = len(os.sched_getaffinity(0))
    with caplog.at_level(logging.INFO):
        c = Classifier(ClassifierSettings(threads=cores + 2))
    assert c.threads == cores
    assert f"using {cores}" in caplog.text


def _texts_of_every_length() -> list[str]:
    from moderation.evaluation.behaviour import suite

    texts = [t for cap in suite() for t in cap.examples][::4]
    return [*texts, " ".join(texts[:12]), " ".join(texts[:40])]


@pytest.mark.skipif(len(__import__("os").sched_getaffinity(0)) < 2, reason="needs 2 cores")
def test_short_messages_run_on_one_thread_with_the_same_scores() -> None:
    split = Classifier(ClassifierSettings(threads=2, one_thread_up_to=24))
    whole = Classifier(ClassifierSettings(threads=2, one_thread_up_to=0))
    assert (split.one_thread_up_to, whole.one_thread_up_to) == (24, 0)
    ran: list[tuple[int, bool]] = []
    infer = split._infer

    def spy(feed: dict[str, np.ndarray], session: object = None) -> np.ndarray:
        ran.append((feed["input_ids"].shape[1], session is None))
        return infer(feed, session)

    split._infer = spy  # type: ignore[method-assign]
    for text in _texts_of_every_length():
        enc = split.encode(text)
        # Same graph, same kernels: the verdict does not depend on the thread count.
        assert np.array_equal(split.scores(enc), whole.scores(enc)), text
    assert {full for n, full in ran if n <= 24} == {False}
    assert {full for n, full in ran if n > 24} == {True}
    assert max(n for n, _ in ran) == 128


def test_one_thread_up_to_is_timed_at_load_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    from moderation.thread_choice import lengths_up_to

    with caplog.at_level(logging.INFO):
        c = Classifier(ClassifierSettings(threads=2, max_tokens=64))
    if c.threads == 1:
        assert c.one_thread_up_to == 0 and "timed at load" not in caplog.text
        return
    assert c.one_thread_up_to in (0, *lengths_up_to(64))
    assert "model: one inference thread against 2, timed at load: 8 tokens:" in caplog.text
    single = Classifier(ClassifierSettings(threads=1))
    assert single.one_thread_up_to == 0  # nothing to choose between


def test_an_emulated_cpu_is_not_timed(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from dataclasses import replace

    import moderation.classifier as classifier_module
    from moderation.cpu import cpu_info

    masked = replace(cpu_info(), emulated=True)
    monkeypatch.setattr(classifier_module, "cpu_info", lambda: masked)
    with caplog.at_level(logging.INFO):
        c = Classifier(ClassifierSettings(threads=2))
    assert c.one_thread_up_to == 0
    assert "timed at load" not in caplog.text
    if c.threads > 1:
        assert "CPU emulated: one-thread session not timed" in caplog.text
        # A length given outright is still honoured.
        assert Classifier(ClassifierSettings(threads=2, one_thread_up_to=16)).one_thread_up_to == 16


def test_weights_move_onto_huge_pages_at_load_when_asked(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from moderation.hugepages import thp_mode

    with caplog.at_level(logging.INFO):
        on = Classifier(ClassifierSettings(threads=2, one_thread_up_to=16, huge_pages=True))
    off = Classifier(ClassifierSettings(threads=2, one_thread_up_to=16))
    assert off.huge_pages is None
    assert on.huge_pages is not None and on.huge_pages.mode == thp_mode()
    assert "transparent huge pages" in caplog.text
    if on.huge_pages.mode not in ("never", "unavailable"):
        assert on.huge_pages.ranges > 0
    enc = on.encode("see you at the gym tomorrow")
    assert np.array_equal(on.scores(enc), off.scores(enc))  # only the pages differ


def test_spinning_its_duration_and_its_stop_reach_the_session() -> None:
    from moderation.classifier import make_session

    path = default_model_dir() / "model.onnx"
    spin = make_session(path, 2, True, spin_us=3000).get_session_options()
    assert spin.get_session_config_entry("session.intra_op.allow_spinning") == "1"
    assert spin.get_session_config_entry("session.intra_op.spin_duration_us") == "3000"
    off = make_session(path, 2, False, spin_us=3000).get_session_options()
    assert off.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    # Without spinning the duration means nothing, and is not passed on.
    with pytest.raises(Exception, match="spin_duration_us"):
        off.get_session_config_entry("session.intra_op.spin_duration_us")
    with pytest.raises(Exception, match="force_spinning_stop"):
        spin.get_session_config_entry("session.force_spinning_stop")
    stop = make_session(path, 2, True, spin_stop=True).get_session_options()
    assert stop.get_session_config_entry("session.force_spinning_stop") == "1"


def test_safe_from_worker_threads_beside_an_event_loop(classifier: Classifier) -> None:
    texts = [f"message number {i} about the game tonight" for i in range(40)]
    expected = [classifier.classify(t).scores for t in texts]

    async def run() -> list[dict[str, float]]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0)

        t = asyncio.create_task(ticker())
        results = await asyncio.gather(*(asyncio.to_thread(classifier.classify, x) for x in texts))
        t.cancel()
        assert ticks > 0  # the loop kept running while the model did
        return [r.scores for r in results]

    got = asyncio.run(run())
    for g, e in zip(got, expected, strict=True):
        assert g == pytest.approx(e, abs=1e-5)


def test_missing_model_files_are_named(tmp_path: Path) -> None:
    with pytest.raises(ModelLoadError, match=r"lacks model\.json"):
        Classifier(ClassifierSettings(model_dir=tmp_path))


def test_encoded_tokens_property() -> None:
    assert Encoded(np.array([101, 7, 102]), False).tokens == 3


@settings(
    max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.text(max_size=400))
def test_any_text_gets_scores_or_the_empty_error(classifier: Classifier, text: str) -> None:
    try:
        result = classifier.classify(text)
    except EmptyTextError:
        return
    assert 3 <= result.tokens <= classifier.max_tokens
    assert all(0.0 <= v <= 1.0 for v in result.scores.values())


EVASIONS = {
    "leetspeak": {"idiot": "1d10t", "stupid": "$tup1d", "bitch": "b!tch"},
    "spaced": {"idiot": "i d i o t", "stupid": "s t u p i d", "bitch": "b i t c h"},
    "dotted": {"idiot": "i.d.i.o.t", "stupid": "s.t.u.p.i.d", "bitch": "b.i.t.c.h"},
    "look-alikes": {
        "idiot": "\u0456d\u0456\u043et",
        "stupid": "st\u03c5p\u0456d",
        "bitch": "b\u0456t\u0441h",
    },
    "stretched": {"idiot": "idiooooot", "stupid": "stuuuupid", "bitch": "biiiitch"},
    "small capitals": {"idiot": "ɪᴅɪᴏᴛ", "stupid": "ꜱᴛᴜᴘɪᴅ", "bitch": "ʙɪᴛᴄʜ"},
    "negative squared": {"idiot": "🅸🅳🅸🅾🆃", "stupid": "🆂🆃🆄🅿🅸🅳", "bitch": "🅱🅸🆃🅲🅷"},
    "emoji between": {
        "idiot": "i😂d😂i😂o😂t",
        "stupid": "s🤡t🤡u🤡p🤡i🤡d",
        "bitch": "b💀i💀t💀c💀h",
    },
    "a one for l, a bar for i": {"idiot": "|d|ot", "stupid": "stup|d", "loser": "1oser"},
    "upside down": {"idiot": "ʇoᴉpᴉ", "stupid": "pᴉdnʇs", "bitch": "ɥɔʇᴉq"},
    "Greek with accents": {"idiot": "ίdίοτ", "stupid": "sτύρίd", "loser": "lοsέr"},
}


@pytest.mark.parametrize("kind", list(EVASIONS))
def test_evasive_spellings_get_the_plain_words_scores(classifier: Classifier, kind: str) -> None:
    for plain, evasive in EVASIONS[kind].items():
        text = "you are such a {} honestly"
        a = classifier.classify(text.format(plain)).scores
        b = classifier.classify(text.format(evasive)).scores
        assert a == b, (kind, evasive)


def test_the_normalizer_can_be_turned_off(classifier: Classifier) -> None:
    from dataclasses import replace

    off = Classifier(replace(ClassifierSettings(threads=1), normalize=False))
    assert off.encode("you 1d10t").ids.tolist() != classifier.encode("you 1d10t").ids.tolist()
    assert off.encode("you idiot").ids.tolist() == classifier.encode("you idiot").ids.tolist()


# Words that exercise every normalizer pass and the tokenizer's splitting, placed so
# that some land on the prefix's cut: spelled-out letters across spaces, leetspeak,
# look-alike and genuine Cyrillic and Greek, NFKC expansions, emoji, CJK, long words,
# chat shorthand ("ur" read by the word after it).
_TRICKY = [
    "i d i o t", "k y s", "a", "I", "1d10t", "h@te", "$tupid", "7pm", "2nd", "idiooot",
    "stuuupid", "іdіоt", "как", "дела", "μm", "5µm", "x½", "ｉｄｉｏｔ", "😀", "你好",
    "i.d.i.o.t", "k-y-s", "word", "chat", "is", "ok", "loooooong", "x" * 120, "\u200bhi",
    "\n", "  ", "end.", "you", "are", "so", "f**k", "b12", "idiot\U0001f602",
    "i\U0001f602d\U0001f602i\U0001f602o\U0001f602t", "\u026a\u1d05\u026a\u1d0f\u1d1b",
    "\U0001f1ee\U0001f1e9\U0001f1ee\U0001f1f4\U0001f1f9", "\U0001f1fa\U0001f1f8", "\u2764\ufe0f",
    "u", "ur", "r", "urself", "u'll", "rated", "the", "not",
]  # fmt: skip


def _long_texts() -> list[str]:
    import random

    from moderation.bench.model import chat_messages
    from moderation.evaluation.evasions import evade

    rng = random.Random(7)
    texts = [t for t in chat_messages(400, 0.25, 3) if len(t) > 1100]
    for _ in range(300):
        words = [rng.choice(_TRICKY) for _ in range(rng.randrange(150, 700))]
        texts.append(" ".join(words))
    # Nothing safe to cut at, or too little text per character to overflow.
    texts += ["a b " * 700, "x" * 3000, "hi " + " " * 3000 + "there", "ok\n" * 600]
    # Cut inside spelled-out letters that begin within the first 128 tokens: joined
    # whole they are one word of 150 letters ([UNK]), cut they would be 80 or so.
    letters = " ".join(rng.choice("bcdfghjklmnpqrstvwxz") for _ in range(150))
    texts.append("hi " * 100 + " " * 550 + letters + " and more words" * 20)
    # A word of look-alikes only is folded unless the message is genuinely Cyrillic,
    # which only its end shows.
    texts.append("рор " + "hello " * 300 + "дела")
    # Turned upside down, a message is read backwards: its end opens it (rule 91).
    turned = evade(" ".join(["you", "are", "such", "an", "idiot", "so"] * 150), "upside down", 1)
    texts += [turned, "hello " * 300 + turned[:60]]
    # A word cut in two by a space is read as one (rule 95): the only space safe to cut
    # at near the prefix's end lies between its pieces, in the first 128 tokens.
    prefix_chars = ClassifierSettings().max_tokens * PREFIX_CHARS_PER_TOKEN
    head = "because " * ((prefix_chars - 24) // 8)
    texts.append(head + "idi ot" + "," * 40 + " and more words" * 20)
    # An idiom read as what it means (rule 121) in the last tokens kept, where the prefix
    # would be cut inside it or before its condition ("later"): no cut is made there.
    for tail in ("i'll hit you back later", "i'll shoot you a text soon"):
        for words in range(119, 124):
            texts.append("because " * words + tail + "," * 40 + " and more words" * 20)
    return texts


@pytest.mark.parametrize("idioms", [False, True])
def test_a_long_message_read_from_its_prefix_has_the_whole_messages_tokens(
    classifier: Classifier, idioms: bool
) -> None:
    from dataclasses import replace

    if idioms != classifier.reads_idioms:
        settings = replace(ClassifierSettings(threads=1), read_idioms=idioms)
        classifier = Classifier(settings)
    texts = _long_texts()
    quick = [classifier.encode(t) for t in texts]
    taken = sum(classifier._encode_prefix(t) is not None for t in texts)
    whole = [classifier.encode(t, from_prefix=False) for t in texts]
    for text, q, w in zip(texts, quick, whole, strict=True):
        assert q.truncated == w.truncated, text[:80]
        assert np.array_equal(q.ids, w.ids), text[:80]
    # Most long texts take the short path (else this compares the long path to itself).
    assert taken > len(texts) // 2, (taken, len(texts))


def test_ascii_text_tokenized_in_python_gets_the_librarys_tokens(classifier: Classifier) -> None:
    from dataclasses import replace

    from moderation import metrics
    from moderation.bench.model import chat_messages
    from moderation.evaluation.evasions import EVASIONS, evade

    library = Classifier(replace(ClassifierSettings(threads=1), ascii_wordpiece=False))
    assert classifier.ascii_wordpiece and not library.ascii_wordpiece
    metrics.describe_model(library)
    assert metrics.MODEL_INFO._value["ascii_wordpiece"] == "false"
    metrics.describe_model(classifier)
    assert metrics.MODEL_INFO._value["ascii_wordpiece"] == "true"
    chat = chat_messages(300, 0.1, 4)
    texts = chat + _long_texts() + _TRICKY
    texts += [evade(t, kind, i) for i, t in enumerate(chat[:40]) for kind in EVASIONS]

    def read(clf: Classifier, text: str, python_ascii: bool = True) -> Any:
        try:
            enc = clf.encode(text, python_ascii=python_ascii)
        except EmptyTextError:
            return None
        return enc.ids.tolist(), enc.truncated

    for text in texts:
        theirs = read(library, text)
        assert read(classifier, text) == theirs, text[:80]
        assert read(classifier, text, python_ascii=False) == theirs, text[:80]
    # Most of them take the Python path (else this compares the library to itself).
    assert classifier._wordpiece is not None
    taken = sum(classifier._wordpiece.encode(t) is not None for t in chat)
    assert taken > len(chat) * 0.9, (taken, len(chat))


def test_the_benchmarks_library_path_skips_the_python_wordpiece(
    classifier: Classifier, monkeypatch: pytest.MonkeyPatch
) -> None:
    wordpiece = classifier._wordpiece
    assert wordpiece is not None
    seen: list[str] = []
    real = wordpiece.encode

    def spy(text: str) -> tuple[list[int], bool] | None:
        seen.append(text)
        return real(text)

    monkeypatch.setattr(wordpiece, "encode", spy)
    library = classifier.encode("hello there", python_ascii=False)
    assert seen == []
    assert np.array_equal(classifier.encode("hello there").ids, library.ids)
    assert seen == ["hello there"]


def _trained_with(tmp_path: Path, normalizer: dict[str, str]) -> Classifier:
    """The shipped model's files, with a manifest saying it was trained with the
    normalizer options given (``--drop-leading-mentions``, ``--space-glued-symbols``)."""
    import json

    source = default_model_dir()
    for f in source.iterdir():
        if f.is_file() and f.name != "model.json":
            (tmp_path / f.name).symlink_to(f)
    manifest = {**load_manifest(source), "normalizer": normalizer}
    (tmp_path / "model.json").write_text(json.dumps(manifest))
    return Classifier(ClassifierSettings(model_dir=tmp_path, threads=1))


def _trained_without_leading_mentions(tmp_path: Path) -> Classifier:
    return _trained_with(tmp_path, {"leading_mentions": "drop"})


def test_a_model_trained_with_glued_emoji_spaced_off_reads_them_so(
    classifier: Classifier, tmp_path: Path
) -> None:
    spacing = _trained_with(tmp_path, {"glued_symbols": "space"})
    spaced = classifier.encode("you are such an idiot \U0001f602").ids.tolist()
    assert spacing.encode("you are such an idiot\U0001f602").ids.tolist() == spaced
    # The shipped model was trained with them glued: it drops a glued one, and reads the
    # message as written without it (docs/model.md, rules 35 and 38).
    plain = classifier.encode("you are such an idiot").ids.tolist()
    assert classifier.encode("you are such an idiot\U0001f602").ids.tolist() == plain != spaced


def test_a_model_trained_without_leading_mentions_reads_past_them(
    classifier: Classifier, tmp_path: Path
) -> None:
    dropping = _trained_without_leading_mentions(tmp_path)
    plain = dropping.encode("I will find you").ids.tolist()
    for text in (
        "@sam I will find you",
        "@user @user: I will find you",
        " @jess_92, I will find you",
    ):
        assert dropping.encode(text).ids.tolist() == plain, text
        # The shipped model was trained with them, and reads them.
        assert classifier.encode(text).ids.tolist() != plain, text
    assert dropping.encode("hey @sam I will find you").ids.tolist() != plain
    assert dropping.encode("@sam").tokens == classifier.encode("@sam").tokens
    # A long message read from its prefix: whether words follow a long run of
    # mentions is known from the whole message, as when it is read whole.
    texts = ["@someone " * 400 + "and then words", "@someone " * 400, "@a " + "words " * 700]
    for text in texts:
        whole = dropping.encode(text, from_prefix=False)
        assert np.array_equal(dropping.encode(text).ids, whole.ids), text[:40]
