"""`moderation bench hugepages`: the weights on 2 MB pages against 4 KB pages (shipped).

Whether the classifier moves its sessions' memory onto huge pages at load
(moderation/hugepages.py, ``MODERATION_HUGE_PAGES``) is fixed for the life of a
process, so each round starts one child per arm (the setting on and off), their order
flipped every round; each times the shipped classifier on chat messages back to back
and after a 10 ms pause (a worker at 100 msg/s waits about that long between
messages), and at fixed lengths. Both must give the same scores bit for bit: only the
pages differ.
"""

from __future__ import annotations

import json

from moderation.bench.arms import (
    Arm,
    child,
    compare,
    conclude,
    parser,
    plan_of,
    ran_as_set,
    rounds,
)
from moderation.hugepages import thp_mode

ARMS = (
    Arm("2 MB pages (MODERATION_HUGE_PAGES=1)", env={"MODERATION_HUGE_PAGES": "1"}),
    Arm("4 KB pages (as shipped)", env={"MODERATION_HUGE_PAGES": "0"}),
)


_check = ran_as_set("MODERATION_HUGE_PAGES", "huge_pages")


def main(argv: list[str] | None = None) -> int:
    """Alternate the two arms in rounds; print and store the table."""
    ns = parser("moderation bench hugepages", __doc__, paused=300).parse_args(argv)
    plan = plan_of(ns)
    if ns.child:
        print(json.dumps(child(plan)))
        return 0

    mode = thp_mode()
    if mode in ("never", "unavailable"):
        print(f"transparent huge pages {mode} on this kernel: nothing to compare")
        return 2
    runs = rounds("moderation.bench.hugepages", ARMS, plan, ns.rounds, _check)
    table, results = compare(runs, ARMS[1].name, "sessions' memory on", "4 KB")
    huge = {arm.name: max(r["huge_bytes"] for r in runs[arm.name]) / 2**20 for arm in ARMS}
    timed = (
        f"Transparent huge pages: `{mode}`. "
        f"{ns.messages} held-out chat messages per round back to back, then the first "
        f"{ns.paused} again each after a {ns.pause_ms:g} ms pause (tokenization included), "
        f"and {ns.repeats} runs at each fixed length (model only); the classifier as "
        "shipped (its one-thread session timed at load in each child)"
    )
    more = (
        "Anonymous memory on huge pages: "
        + ", ".join(f"{name} {mib:.0f} MiB" for name, mib in huge.items())
        + "."
    )
    return conclude(ns, "hugepages", table, results, timed, more)


if __name__ == "__main__":
    raise SystemExit(main())
