"""A verdict may not hang on a final full stop (a CheckList invariance test).

Every example of the behaviour suite is scored in two forms, without a final full stop
and with one, the rest of its text as written. A *flip* is an example whose two forms
get different decisions; *passed, both forms* counts the decisions (two per example)
that match what the capability expects. The suite as written ends its identity lines in
full stops and most threats without, so on it alone a model that reads the full stop
as harmless looks better than it is (docs/model.md, rule 10).

Every example is scored with a mention put in as well (``MENTION_PROBES``: before it,
after a greeting, at its end): whom a message answers says nothing of what it says, yet
a model trained on tweets that open with "@user" reads a mention as a tweet's mark
(rules 12-14).

Every example that chat shorthand changes ("you" -> "u", "your" -> "ur") is scored
rewritten as well (``shorthand``): the threat and insult rows learned from text written
with "you", and chat is not written so (rule 48).

Every example is scored with its spaces taken out as well (``without_spaces``:
"Ihopeyoudieinafire"): a message written without spaces is an evasion a person types in
a moment, and the words it runs together are what the normalizer's cut reads
(docs/model.md, rules 76-81).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from moderation.evaluation.behaviour import suite


def without_final_period(text: str) -> str:
    """``text`` without one final full stop (an ellipsis stays), trailing space trimmed."""
    body = text.rstrip()
    if body.endswith(".") and not body.endswith(".."):
        return body[:-1].rstrip()
    return body


def with_final_period(text: str) -> str:
    """``text`` ending in a full stop where it ends in a letter or digit once any final
    full stop is taken off; other endings (! ? an ellipsis, an emoji, a quote) stay."""
    body = without_final_period(text)
    return body + "." if body and body[-1].isalnum() else body


def final_period(decide: Callable[[str], str]) -> dict[str, Any]:
    """Per capability and in all: examples, flips, and decisions passed over both forms
    (out of twice the examples), decided by ``decide`` (text -> "nudge" | "allow")."""
    rows: dict[str, Any] = {}
    for cap in suite():
        flips = passed = 0
        for text in cap.examples:
            bare, dotted = decide(without_final_period(text)), decide(with_final_period(text))
            flips += bare != dotted
            passed += (bare == cap.expected) + (dotted == cap.expected)
        rows[cap.name] = {"n": len(cap.examples), "flips": flips, "passed_both_forms": passed}
    return {
        "capabilities": rows,
        "n": sum(r["n"] for r in rows.values()),
        "flips": sum(r["flips"] for r in rows.values()),
    }


# Where a chat message names whom it answers: TweetEval's placeholder, a name, a handle
# with digits, a mention after a greeting, one at the end. "{}" is the suite example.
MENTION_PROBES = ("@user {}", "@sam {}", "@jess_92 {}", "hey @sam {}", "{} @sam")


def mentions(decide: Callable[[str], str]) -> dict[str, Any]:
    """Per probe of ``MENTION_PROBES``: how many suite decisions the mention alone
    changes (in all and per capability), how many of those move towards the expected
    decision and how many away, and the probed examples passed; decided by ``decide``.
    Naming whom a message answers says nothing of what it says (docs/model.md, rule 14)."""
    caps = suite()
    plain = {(cap.name, t): decide(t) for cap in caps for t in cap.examples}
    probes: dict[str, Any] = {}
    for probe in MENTION_PROBES:
        per_cap: dict[str, int] = {}
        toward = away = passed = 0
        for cap in caps:
            flips = 0
            for text in cap.examples:
                got = decide(probe.format(text))
                passed += got == cap.expected
                if got != plain[(cap.name, text)]:
                    flips += 1
                    toward += got == cap.expected
                    away += got != cap.expected
            per_cap[cap.name] = flips
        probes[probe] = {
            "flips": toward + away,
            "toward_expected": toward,
            "away_from_expected": away,
            "passed": passed,
            "capabilities": per_cap,
        }
    return {"n": len(plain), "probes": probes}


# Whole words, longest first; "you are" before "you" and "are".
_SHORTHAND = (
    ("you are", "u r"),
    ("you're", "ur"),
    ("yourselves", "urselves"),
    ("yourself", "urself"),
    ("your", "ur"),
    ("you", "u"),
    ("are", "r"),
)
_SHORTHAND_WORDS = re.compile(
    r"\b(?:" + "|".join(re.escape(w) for w, _ in _SHORTHAND) + r")\b", re.IGNORECASE
)
_SHORT = dict(_SHORTHAND)


def shorthand(text: str) -> str:
    """``text`` as chat writes it: "you" as "u", "your" and "you're" as "ur", "yourself"
    as "urself", "are" as "r"; a first capital kept ("You" -> "U")."""

    def short(m: re.Match[str]) -> str:
        word = m.group(0)
        out = _SHORT[word.lower()]
        return out[0].upper() + out[1:] if word[0].isupper() else out

    return _SHORTHAND_WORDS.sub(short, text)


def shorthand_flips(decide: Callable[[str], str]) -> dict[str, Any]:
    """Of the suite examples ``shorthand`` changes: how many are decided otherwise
    rewritten (in all and per capability), how many of those move towards the expected
    decision and how many away, and the rewritten examples passed; by ``decide``."""
    return _flips_when_rewritten(decide, shorthand, passed_per_capability=False)


def _flips_when_rewritten(
    decide: Callable[[str], str], rewrite: Callable[[str], str], *, passed_per_capability: bool
) -> dict[str, Any]:
    """Of the suite examples ``rewrite`` changes: how many ``decide`` decides otherwise
    rewritten, in all and per capability; how many of those move towards the expected
    decision and how many away; and how many pass rewritten (in all, and per capability
    when asked)."""
    rows: dict[str, Any] = {}
    toward = away = passed = 0
    for cap in suite():
        n = flips = cap_passed = 0
        for text in cap.examples:
            new = rewrite(text)
            if new == text:
                continue
            n += 1
            got = decide(new)
            cap_passed += got == cap.expected
            if got != decide(text):
                flips += 1
                toward += got == cap.expected
                away += got != cap.expected
        passed += cap_passed
        rows[cap.name] = {"n": n, "flips": flips}
        if passed_per_capability:
            rows[cap.name]["passed"] = cap_passed
    return {
        "n": sum(r["n"] for r in rows.values()),
        "flips": toward + away,
        "toward_expected": toward,
        "away_from_expected": away,
        "passed": passed,
        "capabilities": rows,
    }


_SPACES = re.compile(r"\s+")


def without_spaces(text: str) -> str:
    """``text`` with every space between its words taken out, punctuation kept."""
    return _SPACES.sub("", text.strip())


def spaces_taken_out(decide: Callable[[str], str]) -> dict[str, Any]:
    """Every suite example written without spaces (``without_spaces``): how many are
    decided otherwise than as written (in all and per capability), how many of those move
    towards the expected decision and how many away, and how many pass so written (in all
    and per capability); decided by ``decide``."""
    return _flips_when_rewritten(decide, without_spaces, passed_per_capability=True)
