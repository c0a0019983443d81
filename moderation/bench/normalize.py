"""`moderation bench normalize`: what the evasion normalizer costs and what it changes.

On held-out chitchat (ordinary chat): time per message, share of messages it changes,
and the model's nudge rate with and without it. On evasive spellings of the same
toxic phrases: what it turns them into and whether the model then nudges.
"""

from __future__ import annotations

import argparse
import gc
import time
from functools import partial

import numpy as np

from moderation.bench.stats import markdown_table, write_docs_section
from moderation.classifier import Classifier

EVASIONS = [
    ("leetspeak", "you are an 1d10t"),
    ("spaced out", "you are an i d i o t"),
    ("dotted", "you are an i.d.i.o.t"),
    ("look-alike letters", "you are an іdіоt"),
    ("stretched", "you are an idiooooot"),
    ("symbols", "you $tupid b!tch"),
    ("full-width", "you are an ｉｄｉｏｔ"),
    ("zero-width", "you are an i\u200bd\u200bi\u200bo\u200bt"),
    ("small capitals", "you are an \u026a\u1d05\u026a\u1d0f\u1d1b"),
    ("boxed letters", "you are an \U0001f178\U0001f173\U0001f178\U0001f17e\U0001f183"),
    ("emoji between letters", "you are an i\U0001f602d\U0001f602i\U0001f602o\U0001f602t"),
    # Dropped (docs/model.md, rule 38); glued, the word read as [UNK].
    ("an emoji glued on", "you are an idiot\U0001f602"),
    # Inside a word, in place of a letter: read as a "*" mask (docs/model.md, rule 39).
    ("an emoji for a letter", "you are an id\U0001f642ot"),
    # A one or a bar read as the letter that makes a word (docs/model.md, rule 41).
    ("a bar for an i", "you are an |d|ot"),
    ("a one for an l", "ki11 yourself"),
    # Spelled out after "a", a word the vocabulary splits into pieces (rule 43).
    ("spelled after an article", "you're a c u n t"),
    # A typo of a word of abuse or harm read as the word (docs/model.md, rule 57).
    ("two letters swapped", "i will klil you"),
    ("a letter left out", "you are so stpid"),
    # Cut into the fewest known words (docs/model.md, rules 76-81).
    ("words run together", "Ihatewomen"),
]


def _scored(c: Classifier, text: str, prefix: bool) -> np.ndarray:
    return c.scores(c.encode(text, from_prefix=prefix))


def _long_pastes(c: Classifier, texts: list[str], rounds: int) -> str:
    """Long pastes read whole against from a prefix, alternating blocks in one run."""
    from moderation.bench.model import time_block

    encode: dict[bool, list[float]] = {False: [], True: []}
    full: dict[bool, list[float]] = {False: [], True: []}
    for r in range(rounds):
        # The order flips each round, so that neither reading always runs first.
        for prefix in (False, True) if r % 2 == 0 else (True, False):
            encode[prefix] += time_block(partial(c.encode, from_prefix=prefix), texts, 5)
            full[prefix] += time_block(partial(_scored, c, prefix=prefix), texts, 5)
    same = all(np.array_equal(c.encode(t).ids, c.encode(t, from_prefix=False).ids) for t in texts)
    rows = []
    for what, secs in (("normalize + tokenize", encode), ("with the model", full)):
        whole, quick = (1e3 * np.asarray(secs[k]) for k in (False, True))
        rows.append(
            [
                what,
                f"{np.percentile(whole, 50):.2f}",
                f"{np.percentile(quick, 50):.2f}",
                f"{np.percentile(whole, 50) / np.percentile(quick, 50):.2f}x",
                f"{np.percentile(whole, 99):.2f}",
                f"{np.percentile(quick, 99):.2f}",
            ]
        )
    lengths = [len(t) for t in texts]
    table = markdown_table(
        ["per long paste", "whole p50 ms", "prefix p50 ms", "faster by", "whole p99", "prefix p99"],
        rows,
    )
    return (
        f"{len(texts)} long pastes (several chitchat turns joined; {min(lengths)}-"
        f"{max(lengths)} characters, all over {c.max_tokens} tokens), read whole and from a "
        f"prefix in {rounds} alternating rounds, 2 threads; same tokens for every paste: "
        f"{'yes' if same else 'NO'}.\n\n{table}\n"
    )


def main(argv: list[str] | None = None) -> int:
    """Print the tables; write docs/benchmarks.md."""
    from dataclasses import replace

    from moderation.bench.model import chat_messages
    from moderation.config import Source, classifier_settings
    from moderation.policy import Policy

    p = argparse.ArgumentParser(prog="moderation bench normalize", description=__doc__)
    p.add_argument("--messages", type=int, default=3000)
    p.add_argument("--long", type=int, default=200, help="long pastes to time")
    p.add_argument("--docs", default="docs/benchmarks.md", help="'' to write nothing")
    ns = p.parse_args(argv)

    settings = classifier_settings(Source())
    on = Classifier(settings)
    off = Classifier(replace(settings, normalize=False))
    policy = Policy.for_model(on.labels, on.manifest["thresholds"], settings.thresholds)
    # The classifier's own (leading mentions, glued symbols and idioms as it reads them).
    norm = on.normalizer
    if norm is None:
        raise SystemExit("moderation bench normalize: the normalizer is off (MODERATION_NORMALIZE)")
    texts = chat_messages(ns.messages, 0.0, 11)

    def timed(batch: list[str]) -> np.ndarray:
        gc.disable()
        try:
            secs = []
            for t in batch:
                start = time.perf_counter()
                norm(t)
                secs.append(time.perf_counter() - start)
        finally:
            gc.enable()
        return np.asarray(secs) * 1e6

    us = timed(texts)
    # Most chat is ASCII and skips the passes for other scripts and symbols: the same
    # messages with an emoji at the end take them.
    with_emoji = [t + " \U0001f602" for t in texts]
    us_emoji = timed(with_emoji)
    changed = [t for t in texts if norm(t) != t]

    def nudged(c: Classifier) -> float:
        return float(np.mean([policy.decide(c.classify(t).scores) == "nudge" for t in texts]))

    rate_off, rate_on = nudged(off), nudged(on)
    cost = markdown_table(
        ["messages", "p50 us", "p99 us", "max us", "changed", "nudge rate off", "nudge rate on"],
        [
            [
                len(texts),
                f"{np.percentile(us, 50):.1f}",
                f"{np.percentile(us, 99):.1f}",
                f"{us.max():.1f}",
                f"{len(changed)} ({len(changed) / len(texts):.1%})",
                f"{rate_off:.2%}",
                f"{rate_on:.2%}",
            ],
            [
                f"the same {len(texts)}, an emoji after each",
                f"{np.percentile(us_emoji, 50):.1f}",
                f"{np.percentile(us_emoji, 99):.1f}",
                f"{us_emoji.max():.1f}",
                "",
                "",
                "",
            ],
        ],
    )
    rows = []
    for kind, text in EVASIONS:
        a, b = off.classify(text).scores, on.classify(text).scores
        rows.append(
            [
                kind,
                f"`{norm(text)}`",
                f"{a['toxic']:.3f} ({policy.decide(a)})",
                f"{b['toxic']:.3f} ({policy.decide(b)})",
            ]
        )
    evasions = markdown_table(["evasion", "normalized", "toxic, off", "toxic, on"], rows)
    body = (
        f"Command: `moderation bench normalize --messages {ns.messages}`. Held-out chitchat "
        f"utterances: normalizer time per message (no model), share it changes, and the "
        f"shipped model's nudge rate without and with it (same run).\n\n{cost}\n\n"
        f"Evasive spellings, without and with the normalizer:\n\n{evasions}\n\n"
        + _long_pastes(on, chat_messages(ns.long, 1.0, 12), rounds=3)
    )
    print(body)
    print("examples of changed chitchat:", changed[:10])
    if ns.docs:
        from pathlib import Path

        write_docs_section(Path(ns.docs), "bench-normalize", body)
    return 0
