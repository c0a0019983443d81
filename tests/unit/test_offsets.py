from moderation.kafka.acks import OffsetTracker


def test_commit_position_waits_for_the_oldest_in_flight() -> None:
    t: OffsetTracker[str] = OffsetTracker()
    for off in (10, 11, 12):
        t.begin("p0", off)
    t.finish("p0", 11)
    t.finish("p0", 12)
    assert t.committable() == {"p0": 10}  # 10 is still in flight: nothing past it
    t.finish("p0", 10)
    assert t.committable() == {"p0": 13}


def test_only_moved_positions_are_reported() -> None:
    t: OffsetTracker[str] = OffsetTracker()
    t.begin("p0", 0)
    t.begin("p1", 5)
    t.finish("p0", 0)
    assert t.committable() == {"p0": 1, "p1": 5}
    t.mark_committed({"p0": 1, "p1": 5})
    assert t.committable() == {}
    t.finish("p1", 5)
    assert t.committable() == {"p1": 6}


def test_forget_drops_revoked_partitions_and_counts_in_flight() -> None:
    t: OffsetTracker[str] = OffsetTracker()
    t.begin("p0", 0)
    t.begin("p1", 0)
    assert t.in_flight() == 2 and t.in_flight("p1") == 1
    t.forget(["p1"])
    assert t.in_flight() == 1 and "p1" not in t.committable()
