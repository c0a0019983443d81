"""`moderation bench tokenizer`: ASCII text tokenized in Python (shipped) against the
tokenizers library for every message.

Whether the classifier reads printable-ASCII text with moderation/wordpiece.py is
fixed at load (``MODERATION_ASCII_WORDPIECE``), so each round starts one child per arm,
their order flipped every round; each times the shipped classifier as the worker runs
it (the normalizer and the screen as configured) on chat messages back to back and
after a 10 ms pause, tokenization included, and at fixed lengths (model only: no
tokenizing, so these columns are the arms' common ground). Both must give the same
scores bit for bit: only the tokenizer's code differs, not its ids.
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

ARMS = (
    Arm("ASCII in Python (as shipped)", env={"MODERATION_ASCII_WORDPIECE": "1"}),
    Arm("the tokenizers library for all text", env={"MODERATION_ASCII_WORDPIECE": "0"}),
)


_check = ran_as_set("MODERATION_ASCII_WORDPIECE", "ascii_wordpiece")


def main(argv: list[str] | None = None) -> int:
    """Alternate the two arms in rounds; print and store the table."""
    ns = parser("moderation bench tokenizer", __doc__, paused=300).parse_args(argv)
    plan = plan_of(ns)
    if ns.child:
        print(json.dumps(child(plan)))
        return 0
    runs = rounds("moderation.bench.tokenizer", ARMS, plan, ns.rounds, _check)
    table, results = compare(runs, ARMS[1].name, "tokenizing", "library")
    screen = {run["screened"] for arm_runs in runs.values() for run in arm_runs}
    timed = (
        f"{ns.messages} held-out chat messages per round back to back, then the first "
        f"{ns.paused} again each after a {ns.pause_ms:g} ms pause (normalizing and "
        f"tokenizing included), and {ns.repeats} runs at each fixed length (model only, "
        f"the same work in both arms); the classifier as the worker loads it (screen in "
        f"front: {'yes' if screen == {True} else 'no' if screen == {False} else 'mixed'})"
    )
    return conclude(ns, "tokenizer", table, results, timed)


if __name__ == "__main__":
    raise SystemExit(main())
