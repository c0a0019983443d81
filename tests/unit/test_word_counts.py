import gzip
from pathlib import Path

from moderation.build.word_counts import count_words, write_counts


def test_known_words_are_counted_whole_and_lowercased_and_others_only_when_common() -> None:
    texts = ["Shit, what a HYPOCRITE", "shit happens to hypocrites", "@shitlord shitt"]
    texts += ["dont", "Dont go", "i dont", "probs"]
    counts = count_words(texts, frozenset({"shit", "hypocrite", "hypocrites", "happens"}))
    # Runs of letters are words: "shitlord" and "shitt" are not "shit". A word no list
    # knows is written only when used three times ("dont"), not twice or once.
    assert counts == {"shit": 2, "hypocrite": 1, "hypocrites": 1, "happens": 1, "dont": 3}


def test_the_file_is_sorted_and_the_same_counts_give_the_same_bytes(tmp_path: Path) -> None:
    counts = count_words(["zeta alpha alpha beta"], frozenset({"zeta", "alpha", "beta"}))
    write_counts(counts, tmp_path / "a.gz")
    write_counts(counts, tmp_path / "b.gz")
    assert (tmp_path / "a.gz").read_bytes() == (tmp_path / "b.gz").read_bytes()
    lines = gzip.decompress((tmp_path / "a.gz").read_bytes()).decode("ascii")
    assert lines == "alpha 2\nbeta 1\nzeta 1\n"


def test_a_word_no_list_knows_counts_only_where_prose_writes_it() -> None:
    # "guncontrol" three times as a hashtag's or handle's body and twice in prose: not
    # written (rule 85); "maga" three times in prose is, its hashtag uses counted too. A
    # known word counts everywhere, as before.
    texts = ["#GunControl now", "#guncontrol", "@guncontrol hi", "guncontrol laws"]
    texts += ["no guncontrol", "maga hats", "MAGA!", "#MAGA maga", "#Hate"]
    counts = count_words(texts, frozenset({"hate"}))
    assert counts == {"maga": 4, "hate": 1}
