"""`moderation bench model` times its rows in rounds: every row sees each of its messages
once, no row always runs first, and a row reports each round's p50 beside the whole."""

from collections.abc import Callable

from moderation.bench.model import PADDED_LENGTH, Variant, row_of, threads_by_length, time_rounds


def test_every_row_runs_each_of_its_messages_once_and_the_order_rotates() -> None:
    calls: list[tuple[str, str]] = []

    def recorder(key: str) -> Callable[[str], None]:
        return lambda text: calls.append((key, text))

    texts = [f"m{i}" for i in range(12)]
    variants = [Variant(k, k, 1, recorder(k), n) for k, n in (("a", 6), ("b", 12), ("c", 12))]
    seconds = time_rounds(variants, texts, warmup=0, rounds=3)

    for v in variants:
        timed = [t for k, t in calls if k == v.key]
        assert sorted(timed) == sorted(texts[: v.n])
        assert [len(block) for block in seconds[v.key]] == [v.n // 3] * 3
    firsts = [calls[r * 10][0] for r in range(3)]  # 2 + 4 + 4 messages a round
    assert firsts == ["a", "b", "c"]


def test_warm_up_runs_are_not_timed() -> None:
    calls: list[str] = []
    variants = [Variant("a", "a", 1, calls.append, 8)]
    seconds = time_rounds(variants, [f"m{i}" for i in range(8)], warmup=2, rounds=2)
    assert sum(len(block) for block in seconds["a"]) == 8
    assert len(calls) == 8 + 2 * 2


def test_a_row_pools_its_rounds_and_keeps_each_rounds_p50() -> None:
    v = Variant("a", "a", 1, print, 6)
    row = row_of(v, [[0.001, 0.002, 0.003], [0.004, 0.005, 0.006]])
    assert row.seconds == [0.001, 0.002, 0.003, 0.004, 0.005, 0.006]
    assert row.round_p50_ms == [2.0, 5.0]
    assert row.stats["p50_ms"] == 3.5


def test_the_shipped_split_is_named_in_words_at_every_timed_length() -> None:
    # A load that times no length worth one thread says so, not "1 thread up to 0 tokens".
    assert threads_by_length(0) == "2 threads at every length"
    assert threads_by_length(16) == "1 thread up to 16 tokens, 2 above"
    assert threads_by_length(PADDED_LENGTH) == "1 thread at every length"
