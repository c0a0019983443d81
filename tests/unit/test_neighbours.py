"""Rule 86: a typo of three letters that a word of abuse shares with other words ("sht":
shit, shot, shut), read by the words beside it, with the table the package ships."""

import gzip
import json
from pathlib import Path

import pytest

from moderation.build.neighbours import NEIGHBOURS_FILE, count_neighbours, write_neighbours
from moderation.build.word_counts import training_texts
from moderation.normalize import (
    Normalizer,
    neighbour_counts,
    read_by_neighbours,
    shared_short_typos,
)

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data"
VOCAB = frozenset(
    json.loads((ROOT / "models" / "moderation-minilm-int8" / "tokenizer.json").read_text())[
        "model"
    ]["vocab"]
)
shipped = Normalizer(VOCAB)


def test_the_neighbours_of_each_word_are_counted_on_both_sides(tmp_path: Path) -> None:
    texts = ["You suck, such a loser", "you SUCK", "such fun", "it's such a shame"]
    counts = count_neighbours(texts, frozenset({"suck", "such"}))
    assert counts[("suck", "L", "you")] == 2 and counts[("suck", "R", "such")] == 1
    assert counts[("such", "L", "suck")] == 1 and counts[("such", "R", "a")] == 2
    assert counts[("such", "L", "it's")] == 1  # an apostrophe stays in the word
    assert ("you", "R", "suck") not in counts  # only the words asked for
    write_neighbours(counts, tmp_path / "a.gz")
    write_neighbours(counts, tmp_path / "b.gz")
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
    lines = gzip.decompress((tmp_path / "a.gz").read_bytes()).decode().splitlines()
    assert lines == sorted(lines) and "suck L you 2" in lines


def test_the_shared_typos_are_no_word_and_share_a_word_of_abuse() -> None:
    shared = shared_short_typos(VOCAB)
    assert {"shit", "shot", "shut"} <= set(shared["sht"]) and "such" in shared["suc"]
    # Rule 62 reads "fuc" already; "sit" and "cut" are English words; "hte" is no typo
    # of a word of abuse.
    for typo in ("fuc", "sit", "cut", "hte"):
        assert typo not in shared


def test_the_word_the_neighbours_choose_is_read_only_when_it_is_a_word_of_abuse() -> None:
    words = ("shit", "shot", "shut")
    assert read_by_neighbours(words, "talks", "on") == "shit"
    assert read_by_neighbours(words, None, "up") is None  # "shut up"
    assert read_by_neighbours(words, "zzqx", "zzqx") is None  # neighbours never seen
    assert neighbour_counts()[("shut", "R", "up")] > neighbour_counts()[("shit", "R", "up")]


@pytest.mark.parametrize(
    ("text", "read"),
    [
        ("@user Who talks sht on this", "@user Who talks shit on this"),
        ("idc if you suc", "idc if you suck"),
        ("suc me", "suck me"),
        ("tone down the dck", "tone down the dick"),
        # Left as written: the neighbours say "shut", "such", or nothing.
        ("sht up", "sht up"),
        ("that is suc a nice day", "that is suc a nice day"),
        # In capitals inside a sentence an acronym, as rule 61 reads three letters.
        ("you SUC at this", "you SUC at this"),
    ],
)
def test_a_shared_typo_of_three_letters_is_read_by_its_neighbours(text: str, read: str) -> None:
    assert shipped(text) == read


@pytest.mark.skipif(not DATA.is_dir(), reason=f"no shared data at {DATA}")
def test_the_shipped_table_is_what_the_training_text_gives() -> None:
    words = frozenset(w for of in shared_short_typos(VOCAB).values() for w in of)
    counts = count_neighbours(training_texts(DATA), words)
    shipped_lines = gzip.decompress(NEIGHBOURS_FILE.read_bytes()).decode().splitlines()
    assert shipped_lines == [f"{w} {s} {o} {n}" for (w, s, o), n in sorted(counts.items())]
