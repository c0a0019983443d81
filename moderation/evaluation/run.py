"""`moderation eval`: the model judged as users meet it, on the shipped path.

Validation splits (macro-F1 of each split's label at the model's thresholds; plus
the Kaggle insults test file, which is evaluation data and never picks anything),
the behaviour suite (pass rate per capability), evasion variants of the validation
positives the model catches when written plainly (share still caught), and benign
chat (nudge rate); on the suite also the decisions a final full stop or a mention
changes, and which labels its examples trip. Everything runs through the classifier as live traffic
does: normalizer, tokenizer, int8 session, batch of one.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from moderation.classifier import Classifier
from moderation.errors import EmptyTextError, ModerationError
from moderation.evaluation import invariance, labels
from moderation.evaluation.behaviour import group_named, suite
from moderation.evaluation.evasions import EVASIONS, evade
from moderation.policy import Policy

# One report per CPU kind: dynamic int8 runs different kernels on AVX2 and on
# AVX-512 VNNI, and the same model scores a little differently on each.
EVAL_FILE = "eval-{kind}.json"
CARD_MARKER = "eval-{kind}"
# Validation split -> the label its gold standard is about.
SPLIT_LABEL = {
    "tweeteval-offensive": "toxic",
    "tweeteval-hate": "hate",
    "davidson": "toxic",
    "insults-test": "insult",
    "convabuse": "toxic",
}
# What a checkpoint, a share of the start or a threshold may be picked by: every split
# above but the Kaggle insults test file (`moderation eval --validation-only`; rule 75).
PICKING_SPLITS = tuple(name for name in SPLIT_LABEL if name != "insults-test")
# Short texts, like chat (the insults comments are long, and slow to score many times).
EVASION_SOURCES = ("tweeteval-offensive", "convabuse")
SEED = 13


def _trips(classifier: Classifier, policy: Policy, text: str) -> tuple[str, ...]:
    """The labels whose score reaches their threshold (none: ``allow``)."""
    try:
        return tuple(policy.triggered(classifier.classify(text).scores))
    except EmptyTextError:
        return ()


def _decide(classifier: Classifier, policy: Policy, text: str) -> str:
    return "nudge" if _trips(classifier, policy, text) else "allow"


def final_period(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """Every suite example decided without and with a final full stop
    (evaluation/invariance.py): flips and passes over both forms, per capability."""
    return invariance.final_period(lambda text: _decide(classifier, policy, text))


def mentions(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """Every suite example decided with a mention put in (evaluation/invariance.py):
    the decisions the mention alone changes, per probe."""
    return invariance.mentions(lambda text: _decide(classifier, policy, text))


def shorthand(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """Every suite example that chat shorthand changes, decided as written and rewritten
    (evaluation/invariance.py): the decisions the shorthand alone changes."""
    return invariance.shorthand_flips(lambda text: _decide(classifier, policy, text))


def spaces_taken_out(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """Every suite example decided as written and with its spaces taken out
    (evaluation/invariance.py): the decisions the missing spaces alone change."""
    return invariance.spaces_taken_out(lambda text: _decide(classifier, policy, text))


def suite_rows(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """The behaviour suite's rows (``behaviour``, ``final_period``, ``mentions``,
    ``shorthand``, ``spaces_taken_out``, ``labels``), each distinct text classified once:
    the other measures read the suite as written again, and one of an example's two
    full-stop forms is usually the text as written. A decision is ``nudge`` exactly when
    some label trips."""
    tripped: dict[str, tuple[str, ...]] = {}

    def trips(text: str) -> tuple[str, ...]:
        if text not in tripped:
            tripped[text] = _trips(classifier, policy, text)
        return tripped[text]

    def decide(text: str) -> str:
        return "nudge" if trips(text) else "allow"

    return {
        "behaviour": behaviour(classifier, policy, decide=decide),
        "final_period": invariance.final_period(decide),
        "mentions": invariance.mentions(decide),
        "shorthand": invariance.shorthand_flips(decide),
        "spaces_taken_out": invariance.spaces_taken_out(decide),
        "labels": labels.labels_tripped(trips, list(policy.thresholds)),
    }


def behaviour(
    classifier: Classifier,
    policy: Policy,
    names: Collection[str] | None = None,
    decide: Callable[[str], str] | None = None,
) -> dict[str, Any]:
    """Pass rate per capability (those in ``names``, or all), with a few failures to
    read; decided by ``decide`` when given (``suite_rows``' shared one)."""
    if decide is None:

        def decide(text: str) -> str:
            return _decide(classifier, policy, text)

    out: dict[str, Any] = {}
    for cap in suite():
        if names is not None and cap.name not in names:
            continue
        got = [decide(t) for t in cap.examples]
        failed = [t for t, d in zip(cap.examples, got, strict=True) if d != cap.expected]
        out[cap.name] = {
            "expected": cap.expected,
            "n": len(cap.examples),
            "passed": len(cap.examples) - len(failed),
            "rate": 1 - len(failed) / len(cap.examples),
            "failures": failed[:5],
        }
        by_group = _by_group(cap.examples, [d == cap.expected for d in got])
        if by_group:
            out[cap.name]["by_group"] = by_group
    return out


def _by_group(examples: Sequence[str], passed: Sequence[bool]) -> dict[str, dict[str, int]]:
    """Passes per identity group, for a capability whose every example names one group
    (the identity capabilities swap each frame over every group); else empty. One
    group's row falling behind the others is what a pass rate over all groups hides."""
    groups = [group_named(t) for t in examples]
    if not groups or None in groups:
        return {}
    out: dict[str, dict[str, int]] = {}
    for group, ok in zip(groups, passed, strict=True):
        row = out.setdefault(str(group), {"passed": 0, "n": 0})
        row["passed"] += ok
        row["n"] += 1
    return out


def _split_sets(data_dir: Path) -> dict[str, list[Any]]:
    from moderation.build import datasets

    return {
        "tweeteval-offensive": datasets.tweeteval(data_dir, "offensive", "val"),
        "tweeteval-hate": datasets.tweeteval(data_dir, "hate", "val"),
        "davidson": datasets.davidson(data_dir, "val"),
        # The Kaggle test file: evaluation data (this model trained on all of train.csv).
        "insults-test": datasets.insults("test"),
        "convabuse": datasets.convabuse(data_dir, "valid"),
    }


def splits(
    classifier: Classifier, policy: Policy, data_dir: Path, names: tuple[str, ...] | None = None
) -> dict[str, Any]:
    """Validation splits: macro-F1 of each split's label; the positives' texts kept."""
    from moderation.build.datasets import LABELS
    from moderation.build.evaluate import int8_scores
    from moderation.build.metrics import macro_f1

    out: dict[str, Any] = {}
    for name, examples in _split_sets(data_dir).items():
        if names is not None and name not in names:
            continue
        label = SPLIT_LABEL[name]
        j = LABELS.index(label)
        known = [e for e in examples if e.targets[j] >= 0]
        texts = [e.text for e in known]
        y = np.array([e.targets[j] for e in known])
        scores = int8_scores(classifier, texts)
        nudged = [policy.decide(classifier.label_scores(r)) == "nudge" for r in scores]
        pred = scores[:, classifier.labels.index(label)] >= policy.thresholds[label]
        out[name] = {
            "label": label,
            "n": len(known),
            "positives": int(y.sum()),
            "macro_f1": macro_f1(y, pred),
            "positive_texts_caught": [
                t for t, yy, n in zip(texts, y, nudged, strict=True) if yy and n
            ],
        }
    return out


def splits_caught(
    classifier: Classifier, policy: Policy, data_dir: Path, names: tuple[str, ...]
) -> list[str]:
    """Positives of the named validation splits that the model nudges as written."""
    rows = splits(classifier, policy, data_dir, names)
    return [t for name in names for t in rows[name]["positive_texts_caught"]]


def evasion(classifier: Classifier, policy: Policy, caught: list[str]) -> dict[str, Any]:
    """Of positives caught when written plainly, the share still nudged per evasion."""
    out: dict[str, Any] = {}
    for kind in EVASIONS:
        kept = sum(_decide(classifier, policy, evade(t, kind, SEED)) == "nudge" for t in caught)
        out[kind] = {
            "n": len(caught),
            "still_caught": kept,
            "retention": kept / max(1, len(caught)),
        }
    return out


def benign_chat(classifier: Classifier, policy: Policy, limit: int) -> dict[str, Any]:
    """Nudge rate on held-out ordinary chat (chitchat validation utterances)."""
    from moderation.build.datasets import chitchat_utterances

    texts = chitchat_utterances("val")[:limit]
    nudged = [t for t in texts if _decide(classifier, policy, t) == "nudge"]
    return {"n": len(texts), "nudged": len(nudged), "nudge_rate": len(nudged) / len(texts)}


def benign_chat_groups(classifier: Classifier, policy: Policy) -> dict[str, Any]:
    """Nudge rate on held-out ordinary chat that names an identity group: every
    chitchat validation and test utterance with one of ``identity_words``'s words. The
    whole pool's rate hides it (such chat is under one utterance in a hundred); it is
    where "nobody nudged for naming who they are" is tested on real chat, not templates.
    The pool is unlabelled and overwhelmingly benign, so a few of its nudges are
    deserved."""
    from moderation.build.datasets import chitchat_utterances
    from moderation.evaluation.identity_words import names_a_group

    texts = [t for s in ("val", "test") for t in chitchat_utterances(s) if names_a_group(t)]
    nudged = sum(_decide(classifier, policy, t) == "nudge" for t in texts)
    return {"n": len(texts), "nudged": nudged, "nudge_rate": nudged / max(1, len(texts))}


def evaluate(
    classifier: Classifier, policy: Policy, data_dir: Path, chat_limit: int = 3000
) -> dict[str, Any]:
    """Every part, as one JSON-ready report."""
    from moderation.cpu import cpu_info

    cpu = cpu_info()
    split_rows = splits(classifier, policy, data_dir)
    caught = _take_caught(split_rows)
    suite_part = suite_rows(classifier, policy)
    return {
        "model": classifier.model_id,
        "cpu_kind": cpu.kind,
        # Under an emulator (scripts/emulate-avx2.sh): the kind's int8 arithmetic, exactly.
        "emulated": cpu.emulated,
        "thresholds": dict(policy.thresholds),
        "splits": split_rows,
        "behaviour": suite_part["behaviour"],
        "evasion": evasion(classifier, policy, caught),
        "benign_chat": benign_chat(classifier, policy, chat_limit),
        "benign_chat_groups": benign_chat_groups(classifier, policy),
        "final_period": suite_part["final_period"],
        "mentions": suite_part["mentions"],
        "shorthand": suite_part["shorthand"],
        "spaces_taken_out": suite_part["spaces_taken_out"],
        "labels": suite_part["labels"],
    }


# The parts `moderation eval --only` can score again into a stored report.
RESCORABLE = ("behaviour", "evasion")


def rescored(
    stored: dict[str, Any],
    classifier: Classifier,
    policy: Policy,
    part: str,
    data_dir: Path | None = None,
) -> dict[str, Any]:
    """``stored`` with one part scored again (`moderation eval --only PART`), the rest
    kept: the behaviour suite (as written, without and with a final full stop, with
    mentions put in, in chat shorthand, with the spaces taken out, and the labels its
    examples trip), which grows more often than the data sets change; or the evasions
    (the evasion sources' splits, whose caught positives they rewrite, and every evasion
    kind), after a kind is added or the normalizer learns one. The rest of an emulated
    AVX2 evaluation takes the better part of an hour. Only a report of this model,
    measured on this CPU kind at these thresholds, may be updated this way."""
    from moderation.cpu import cpu_info

    if part not in RESCORABLE:
        raise ModerationError(f"eval --only {part}: choose one of {', '.join(RESCORABLE)}")
    kind = cpu_info().kind
    mismatch = [
        f"{what} {was!r}, not {now!r}"
        for what, was, now in (
            ("model", stored.get("model"), classifier.model_id),
            ("CPU kind", stored.get("cpu_kind"), kind),
            ("thresholds", stored.get("thresholds"), dict(policy.thresholds)),
        )
        if was != now
    ]
    if mismatch:
        raise ModerationError(
            f"eval --only {part}: the stored report measured "
            + "; ".join(mismatch)
            + ": run the whole `moderation eval` instead"
        )
    if part == "behaviour":
        return {**stored, **suite_rows(classifier, policy)}
    if data_dir is None:
        raise ModerationError("eval --only evasion needs --data (the shared data folder)")
    rows = evasion_rows(classifier, policy, data_dir)
    return {**stored, "splits": {**stored["splits"], **rows["splits"]}, "evasion": rows["evasion"]}


def evasion_rows(classifier: Classifier, policy: Policy, data_dir: Path) -> dict[str, Any]:
    """The evasion sources' split rows and every evasion kind's, as `evaluate` has them."""
    rows = splits(classifier, policy, data_dir, EVASION_SOURCES)
    return {"splits": rows, "evasion": evasion(classifier, policy, _take_caught(rows))}


def _take_caught(rows: dict[str, Any]) -> list[str]:
    """The evasion sources' positives caught plainly, taken out of the split ``rows``
    (texts are no part of a report)."""
    caught = [t for name in EVASION_SOURCES for t in rows[name]["positive_texts_caught"]]
    for row in rows.values():
        del row["positive_texts_caught"]
    return caught


def split_lines(rows: dict[str, Any]) -> list[str]:
    """The validation splits' table (``splits``' rows)."""
    lines = ["| validation split | label | n | positives | macro-F1 |", "|---|---|---|---|---|"]
    for name, r in rows.items():
        lines.append(
            f"| {name} | {r['label']} | {r['n']} | {r['positives']} | {r['macro_f1']:.4f} |"
        )
    return lines


def markdown(report: dict[str, Any]) -> str:
    """The report as the model card's section."""
    lines = [
        f"Measured by `moderation eval` on {report['model']} (CPU kind {report['cpu_kind']}"
        + (", emulated: scripts/emulate-avx2.sh)." if report.get("emulated") else ")."),
        "",
        *split_lines(report["splits"]),
    ]
    lines += ["", "| behaviour (held-out suite) | expected | pass rate | n |", "|---|---|---|---|"]
    for name, r in report["behaviour"].items():
        lines.append(f"| {name} | {r['expected']} | {r['rate']:.1%} | {r['n']} |")
    grouped = {name: r["by_group"] for name, r in report["behaviour"].items() if "by_group" in r}
    if grouped:
        groups = list(next(iter(grouped.values())))
        lines += [
            "",
            "| identity group (examples passed) | " + " | ".join(grouped) + " |",
            "|---" * (len(grouped) + 1) + "|",
        ]
        for group in groups:
            cells = [f"{g[group]['passed']}/{g[group]['n']}" for g in grouped.values()]
            lines.append(f"| {group} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "| evasion of validation positives caught plainly | still caught |",
        "|---|---|",
    ]
    for name, r in report["evasion"].items():
        lines.append(f"| {name} | {r['retention']:.1%} ({r['still_caught']}/{r['n']}) |")
    chat = report["benign_chat"]
    lines += [
        "",
        f"Benign chat (chitchat validation): nudge rate {chat['nudge_rate']:.2%} of {chat['n']}.",
    ]
    if "benign_chat_groups" in report:
        named = report["benign_chat_groups"]
        lines += [
            "",
            "Benign chat that names an identity group (chitchat validation and test"
            f" utterances with a group's name): nudge rate {named['nudge_rate']:.2%}"
            f" ({named['nudged']} of {named['n']}).",
        ]
    if "final_period" in report:
        lines += ["", *_final_period_lines(report["final_period"])]
    if "mentions" in report:
        lines += ["", *_mention_lines(report["mentions"])]
    if "shorthand" in report:
        lines += ["", *_shorthand_lines(report["shorthand"])]
    if "spaces_taken_out" in report:
        lines += ["", *_spaces_lines(report["spaces_taken_out"])]
    if "labels" in report:
        lines += ["", *_label_lines(report["labels"])]
    return "\n".join(lines) + "\n"


def _final_period_lines(inv: dict[str, Any]) -> list[str]:
    """The invariance table: each suite example without and with a final full stop."""
    lines = [
        "| a final full stop taken off or added (suite) | flips | passed, both forms |",
        "|---|---|---|",
    ]
    for name, r in inv["capabilities"].items():
        lines.append(
            f"| {name} | {r['flips']} of {r['n']} | {r['passed_both_forms']}/{2 * r['n']} |"
        )
    lines.append(f"| all | {inv['flips']} of {inv['n']} | |")
    return lines


def _mention_lines(inv: dict[str, Any]) -> list[str]:
    """The mention table: each suite example as written and with a mention put in."""
    n = inv["n"]
    lines = [
        "| a mention put in (suite; {} the example) | flips | towards expected | away | passed |",
        "|---|---|---|---|---|",
    ]
    for probe, r in inv["probes"].items():
        lines.append(
            f"| `{probe}` | {r['flips']} of {n} | {r['toward_expected']} |"
            f" {r['away_from_expected']} | {r['passed']}/{n} |"
        )
    return lines


def _shorthand_lines(inv: dict[str, Any]) -> list[str]:
    """The shorthand table: each suite example that chat shorthand changes ("u", "ur",
    "urself", "r"), as written and rewritten."""
    lines = [
        "| written in chat shorthand (suite examples it changes) | flips |",
        "|---|---|",
    ]
    for name, r in inv["capabilities"].items():
        if r["n"]:
            lines.append(f"| {name} | {r['flips']} of {r['n']} |")
    lines += [
        f"| all | {inv['flips']} of {inv['n']} |",
        "",
        f"Of those flips {inv['toward_expected']} move towards the expected decision and"
        f" {inv['away_from_expected']} away; rewritten, {inv['passed']} of {inv['n']} pass.",
    ]
    return lines


def _spaces_lines(inv: dict[str, Any]) -> list[str]:
    """The missing-spaces table: each suite example as written and with its spaces taken
    out ("Ihopeyoudieinafire")."""
    lines = [
        "| written without spaces (suite) | flips | passed so written |",
        "|---|---|---|",
    ]
    for name, r in inv["capabilities"].items():
        if r["n"]:
            lines.append(f"| {name} | {r['flips']} of {r['n']} | {r['passed']}/{r['n']} |")
    lines += [
        f"| all | {inv['flips']} of {inv['n']} | {inv['passed']}/{inv['n']} |",
        "",
        f"Of those flips {inv['toward_expected']} move towards the expected decision and"
        f" {inv['away_from_expected']} away.",
    ]
    return lines


def _label_lines(tripped: dict[str, Any]) -> list[str]:
    """The labels table: per capability, the examples (as written) each label trips."""
    names = tripped["labels"]
    lines = [
        "| labels tripped (suite, as written) | n | " + " | ".join(names) + " |",
        "|---" * (len(names) + 2) + "|",
    ]
    for name, row in tripped["capabilities"].items():
        lines.append(f"| {name} | {row['n']} | " + " | ".join(str(row[x]) for x in names) + " |")
    off = "; ".join(f"{key} {n}" for key, n in tripped["off_label"].items())
    return [*lines, "", f"Labels tripped on examples they are not about: {off}."]


def eval_path(model_dir: Path, kind: str) -> Path:
    """Where the report measured on CPU kind ``kind`` is kept beside the model."""
    return model_dir / EVAL_FILE.format(kind=kind)


def reports(model_dir: Path) -> dict[str, dict[str, Any]]:
    """Every stored report beside the model, by the CPU kind that measured it."""
    found = {}
    for path in sorted(model_dir.glob(EVAL_FILE.format(kind="*"))):
        report = json.loads(path.read_text())
        found[report["cpu_kind"]] = report
    return found


def write(report: dict[str, Any], model_dir: Path) -> Path:
    """Store the report beside the model and in its card, in this CPU kind's section
    (the other kinds' sections stay as they were measured)."""
    from moderation.bench.stats import replace_section

    path = eval_path(model_dir, report["cpu_kind"])
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    card = model_dir / "MODEL_CARD.md"
    text = card.read_text() if card.exists() else "# Model card\n"
    marker = CARD_MARKER.format(kind=report["cpu_kind"])
    if "## Evaluation (`moderation eval`)" not in text:
        text = text.rstrip() + "\n\n## Evaluation (`moderation eval`)\n"
    card.write_text(replace_section(text, marker, markdown(report), sibling="eval-"))
    return path
