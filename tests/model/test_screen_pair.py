"""The shipped model with the shipped screen in front (moderation/screen.py): the
screen answers alone only below its ratio, every other message is the model's own, and
a screen that reads otherwise than the model is refused at load."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from moderation import metrics
from moderation.classifier import Classifier
from moderation.config import ClassifierSettings, default_model_dir
from moderation.config.model import DEFAULT_SCREEN_NAME, DEFAULT_SCREEN_RATIO, SCREENED_KINDS
from moderation.cpu import cpu_info
from moderation.errors import ModelLoadError
from moderation.evaluation import run
from moderation.policy import Policy

SCREEN = default_model_dir(DEFAULT_SCREEN_NAME)
BENIGN = [
    "see you at practice tomorrow!",
    "thanks, that recipe was great",
    "what time does the movie start?",
    "my sister just got a puppy, he is so cute",
]
ABUSIVE = [
    "you are a worthless piece of shit",
    "shut up you stupid idiot",
    "I will find you and kill you",
    "go kill yourself, nobody likes you",
]


def settings(screen_dir: Path | None = None) -> ClassifierSettings:
    # One session per model, so that the pair and the model alone run the same kernels.
    return ClassifierSettings(
        model_dir=default_model_dir(), threads=2, one_thread_up_to=0, screen_dir=screen_dir
    )


@pytest.fixture(scope="module")
def pair() -> Classifier:
    return Classifier(settings(screen_dir=SCREEN))


@pytest.fixture(scope="module")
def alone() -> Classifier:
    return Classifier(settings())


@pytest.fixture(scope="module")
def student() -> Classifier:
    return Classifier(ClassifierSettings(model_dir=SCREEN, threads=2, one_thread_up_to=0))


def test_the_pair_has_an_id_naming_both_files_and_the_ratio(
    pair: Classifier, alone: Classifier, student: Classifier
) -> None:
    # The model as it runs (its id with the full-stop reading) and the screen's file.
    screen_file = student.manifest["id"]
    assert pair.model_id == f"{alone.model_id}+screen:{screen_file}<{DEFAULT_SCREEN_RATIO:g}"
    assert pair.classify("hello there").model_id == pair.model_id


def test_plain_chat_is_answered_by_the_screen_below_the_ratio(
    pair: Classifier, alone: Classifier, student: Classifier
) -> None:
    screen_thresholds = np.array([student.manifest["thresholds"][k] for k in student.labels])
    model_thresholds = np.array([alone.manifest["thresholds"][k] for k in alone.labels])
    before = metrics.SCREENED._value.get()
    for text in BENIGN:
        enc = pair.encode(text)
        relative = student.scores(enc) / screen_thresholds
        assert relative.max() < DEFAULT_SCREEN_RATIO, text
        got = pair.scores(enc)
        np.testing.assert_allclose(got, relative * model_thresholds, rtol=1e-6)
        assert (got < DEFAULT_SCREEN_RATIO * model_thresholds).all()
    assert metrics.SCREENED._value.get() - before == len(BENIGN)


def test_every_message_the_screen_does_not_answer_is_the_models_own(
    pair: Classifier, alone: Classifier
) -> None:
    policy = Policy(alone.manifest["thresholds"])
    before = metrics.SCREENED._value.get()
    for text in ABUSIVE:
        enc = pair.encode(text)
        assert np.array_equal(pair.scores(enc), alone.scores(enc)), text
        assert policy.decide(pair.classify(text).scores) == "nudge", text
    assert metrics.SCREENED._value.get() == before


def test_screen_ratio_counts_what_the_running_pair_answers_through_its_screen(
    pair: Classifier, alone: Classifier, student: Classifier
) -> None:
    """`moderation screen-ratio` reads the model and the screen apart; what it says the
    screen would answer alone at the configured ratio is what the pair does answer so."""
    from moderation.evaluation.screen_ratio import measure

    # Near the ratio too: "what a stupid question" sat at 0.127 of the shipped screen's
    # thresholds (and at 0.070 of the model's, which the screen must not be read by).
    near = ["what a stupid question", "my brother is an idiot sometimes", "i hate mondays"]
    texts = [*BENIGN, *ABUSIVE, *near, "lmao you're crazy", "i could kill for a pizza right now"]
    policy = Policy(alone.manifest["thresholds"])
    (row,) = measure(alone, policy, student, {"mixed": texts}, texts, (DEFAULT_SCREEN_RATIO,))
    screened = []
    for text in texts:
        before = metrics.SCREENED._value.get()
        pair.scores(pair.encode(text))
        screened.append(metrics.SCREENED._value.get() - before == 1)
    nudged = [policy.decide(alone.classify(t).scores) == "nudge" for t in texts]
    assert row.answered_alone == sum(screened) / len(texts)
    lost = sum(s and n for s, n in zip(screened, nudged, strict=True))
    assert row.lost["mixed"] == (lost, sum(nudged))
    assert sum(screened) >= len(BENIGN) and sum(nudged) >= len(ABUSIVE)


def test_the_stored_report_of_the_pair_measured_this_pair_and_still_holds(
    pair: Classifier,
) -> None:
    """The pair's eval report (beside the screen) is this pair's, and the suite decides
    at least as many lines as expected now as it records (on the CPU kind it measured)."""
    reports = run.reports(SCREEN)
    assert reports, "no eval-<cpu kind>.json beside the screen: run `moderation eval --write`"
    for kind, report in reports.items():
        assert report["model"] == pair.model_id, kind
    here = reports.get(cpu_info().kind)
    if here is None:
        pytest.skip(f"the pair was not scored on {cpu_info().kind}")
    now = run.behaviour(pair, Policy(pair.manifest["thresholds"]))
    for name, row in now.items():
        assert row["rate"] >= here["behaviour"][name]["rate"] - 1e-9, name


def test_the_screen_is_on_by_default_only_where_the_pair_was_scored() -> None:
    # Rules 56 and 65: a kind joins SCREENED_KINDS with the pair's report for it, which
    # the card beside the screen shows.
    reports = run.reports(SCREEN)
    card = (SCREEN / "MODEL_CARD.md").read_text()
    for kind in SCREENED_KINDS:
        assert kind in reports, f"the screen is on by default on {kind}, never scored there"
        assert run.markdown(reports[kind]) in card, kind


def _screen_with(tmp_path: Path, name: str, edit: Callable[[dict[str, Any]], None]) -> Path:
    """The shipped screen's files, linked, but for JSON file ``name``, edited by ``edit``."""
    out = tmp_path / name.removesuffix(".json")
    out.mkdir()
    for f in SCREEN.iterdir():
        if f.name != name:
            (out / f.name).symlink_to(f)
    data = json.loads((SCREEN / name).read_text())
    edit(data)
    (out / name).write_text(json.dumps(data))
    return out


def _relabel(manifest: dict[str, Any]) -> None:
    manifest["labels"] = ["toxic", "insult", "threat", "hate"]


def _add_a_word(tokenizer: dict[str, Any]) -> None:
    vocab = tokenizer["model"]["vocab"]
    vocab["zzznotaword"] = len(vocab)


def test_a_screen_with_other_labels_or_another_vocabulary_is_refused_at_load(
    tmp_path: Path,
) -> None:
    with pytest.raises(ModelLoadError, match="labels"):
        Classifier(settings(screen_dir=_screen_with(tmp_path, "model.json", _relabel)))
    with pytest.raises(ModelLoadError, match="another vocabulary"):
        Classifier(settings(screen_dir=_screen_with(tmp_path, "tokenizer.json", _add_a_word)))


def test_a_batch_is_read_as_its_messages_are_the_screened_rows_the_screens(
    pair: Classifier, alone: Classifier
) -> None:
    abusive = pair.encode(ABUSIVE[0])
    text = BENIGN[0]
    while pair.encode(text).tokens < abusive.tokens:
        text += " ok"
    benign = pair.encode(text)
    assert benign.tokens == abusive.tokens
    model_thresholds = np.array([alone.manifest["thresholds"][k] for k in alone.labels])
    before = metrics.SCREENED._value.get()
    rows = pair.scores_same_length([benign, abusive])
    assert metrics.SCREENED._value.get() - before == 1
    assert (rows[0] < DEFAULT_SCREEN_RATIO * model_thresholds).all()
    # The model reads the rest as a batch of its own: here the abusive message alone.
    assert np.array_equal(rows[1], alone.scores_same_length([abusive])[0])
    lane = pair.second_session(1)
    assert np.array_equal(lane(abusive), alone.second_session(1)(abusive))
    assert (lane(benign) < DEFAULT_SCREEN_RATIO * model_thresholds).all()


def _sessions_run(c: Classifier, texts: list[str]) -> list[tuple[int, str]]:
    """(tokens, which session) for every session run while ``c`` scores ``texts``."""
    names = {
        id(c._screen_one_thread): "screen-1",
        id(c._screen_session): "screen-full",
        id(c._one_thread_session): "model-1",
        id(None): "model-full",
    }
    ran: list[tuple[int, str]] = []
    infer = c._infer

    def spy(feed: dict[str, np.ndarray], session: object = None) -> np.ndarray:
        ran.append((feed["input_ids"].shape[1], names[id(session)]))
        return infer(feed, session)

    c._infer = spy  # type: ignore[method-assign]
    try:
        for text in texts:
            c.scores(c.encode(text))
    finally:
        del c._infer
    return ran


@pytest.mark.skipif(len(__import__("os").sched_getaffinity(0)) < 2, reason="needs 2 cores")
def test_the_screen_runs_short_messages_on_one_thread_with_the_same_scores(
    pair: Classifier,
) -> None:
    split = Classifier(
        ClassifierSettings(
            model_dir=default_model_dir(), threads=2, one_thread_up_to=24, screen_dir=SCREEN
        )
    )
    assert (split.one_thread_up_to, split.screen_one_thread_up_to) == (24, 24)
    assert (pair.one_thread_up_to, pair.screen_one_thread_up_to) == (0, 0)
    texts = [*BENIGN, *ABUSIVE, " ".join(BENIGN * 4), " ".join(ABUSIVE * 30)]
    for text in texts:
        enc = split.encode(text)
        # Same graph, same kernels: neither file's thread count moves a score.
        assert np.array_equal(split.scores(enc), pair.scores(enc)), text
    ran = _sessions_run(split, texts)
    assert {s for n, s in ran if n <= 24} == {"screen-1", "model-1"}
    assert {s for n, s in ran if n > 24} == {"screen-full", "model-full"}


@pytest.mark.skipif(len(__import__("os").sched_getaffinity(0)) < 2, reason="needs 2 cores")
def test_the_screen_times_its_own_one_thread_length_at_load(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """The screen has fewer blocks than the model, so one thread can win for it up to
    another length: each file is timed for itself, the model first."""
    import logging

    import moderation.classifier as classifier_module

    real = replace(cpu_info(), emulated=False)
    monkeypatch.setattr(classifier_module, "cpu_info", lambda: real)
    timed = classifier_module.timed_one_thread_limit
    picks = iter((0, 32))
    timed_files: list[str] = []

    def fixed(one: Any, full: Any, max_tokens: int) -> tuple[int, list[Any]]:
        _, timings = timed(one, full, max_tokens)  # really timed, and logged
        timed_files.append(Path(full._model_path).parent.name)
        return next(picks), timings

    monkeypatch.setattr(classifier_module, "timed_one_thread_limit", fixed)
    with caplog.at_level(logging.INFO):
        c = Classifier(
            ClassifierSettings(model_dir=default_model_dir(), threads=2, screen_dir=SCREEN)
        )
    assert timed_files == [default_model_dir().name, SCREEN.name]
    assert (c.one_thread_up_to, c.screen_one_thread_up_to) == (0, 32)
    assert "screen: one inference thread against 2, timed at load: 8 tokens:" in caplog.text
    assert "(the screen: one up to 32 tokens)" in caplog.text
    ran = _sessions_run(c, [*ABUSIVE, " ".join(BENIGN * 4)])
    # Short: the screen on one thread, the model (for what it does not allow) on both.
    assert {s for n, s in ran if n <= 32} == {"screen-1", "model-full"}
    assert {s for n, s in ran if n > 32} == {"screen-full"}
    metrics.describe_model(c)
    assert metrics.MODEL_INFO._value["screen_one_thread_up_to"] == "32"


def test_bench_e2e_times_the_classifier_as_the_worker_loads_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The end-to-end summary takes the model's time away from the worker's: it must be
    the time of what the worker runs (the screen in front where it ships), and say so."""
    from moderation.bench.e2e_report import measure_model_p50

    monkeypatch.setenv("MODERATION_SCREEN_DIR", str(SCREEN))
    p50, what = measure_model_p50()
    assert what == "model (screen in front)"
    assert p50 > 0
    monkeypatch.setenv("MODERATION_SCREEN_DIR", "off")
    assert measure_model_p50()[1] == "model"
