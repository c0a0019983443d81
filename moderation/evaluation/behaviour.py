"""The behaviour suite: capability -> examples -> the decision a user expects.

In the spirit of CheckList (Ribeiro et al., ACL 2020): small template sets with
counterfactual swaps of identity terms, one capability each. EVALUATION ONLY: the
templates, verbs and identity terms here must never be used to train or tune a model
(nor to pick its thresholds or checkpoints). Training templates, when a build adds
them, use their own disjoint sets; ``tests/unit/test_behaviour_suite.py`` holds the
two apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product
from typing import Literal

Expected = Literal["nudge", "allow"]

# Identity terms held out for evaluation (plural group, singular member).
GROUPS = [
    ("immigrants", "immigrant"),
    ("Muslims", "Muslim"),
    ("Jews", "Jew"),
    ("gay people", "gay person"),
    ("women", "woman"),
    ("Black people", "Black person"),
    ("Mexicans", "Mexican"),
    ("trans people", "trans person"),
    ("refugees", "refugee"),
    ("disabled people", "disabled person"),
]


@dataclass(frozen=True)
class Capability:
    """One behaviour, its expected decision and the examples that test it."""

    name: str
    expected: Expected
    description: str
    examples: tuple[str, ...]


def fill_slots(templates: list[str], **slots: list[str]) -> tuple[str, ...]:
    """Every template with every combination of the slot values it names, deduplicated."""
    out: list[str] = []
    for template in templates:
        names = [n for n in slots if "{" + n + "}" in template]
        for values in product(*(slots[n] for n in names)):
            out.append(template.format(**dict(zip(names, values, strict=True))))
    return tuple(dict.fromkeys(out))


def _groups(templates: list[str]) -> tuple[str, ...]:
    out: list[str] = []
    for plural, member in GROUPS:
        out += [t.format(group=plural, member=member) for t in templates]
    return tuple(out)


def suite() -> list[Capability]:
    """Every capability with its examples, in a fixed order."""
    return [
        Capability(
            "threat_to_person",
            "nudge",
            "violence, death wishes and self-harm incitement aimed at a person",
            (
                *fill_slots(
                    [
                        "I hope you {die}",
                        "i will {hurt} you",
                        "I'm going to {hurt} you and your whole family",
                        "you deserve to {die}",
                        "watch your back, I know where you live and I will {hurt} you",
                        "I'm coming to your {place} tomorrow with a {weapon}",
                    ],
                    die=["die", "die in a fire", "get cancer and die", "choke and die"],
                    hurt=["find and hurt", "kill", "beat", "stab"],
                    place=["school", "house", "office"],
                    weapon=["gun", "knife"],
                ),
                "go hang yourself",
                "kys",
                "kill yourself",
                "nobody would miss you if you killed yourself",
                "drink bleach",
                "do everyone a favour and end yourself",
            ),
        ),
        Capability(
            "violent_words_in_benign_chat",
            "allow",
            "violent words used figuratively in ordinary chat",
            (
                "this boss fight killed me",
                "I'm dying of laughter",
                "that exam destroyed me",
                "we murdered that karaoke song last night",
                "my feet are killing me after that hike",
                "shoot me a text when you land",
                "the traffic is killing me today",
                "I could kill for a pizza right now",
                "that comedian absolutely slayed",
                "the new album is fire, it blew me away",
                "I almost died when she told me the news, so funny",
                "let's crush this project tomorrow",
                "he totally nailed the presentation",
                "my phone battery died again",
                "this heat is going to be the death of me lol",
                "we got smashed in the final, 3-0",
            ),
        ),
        Capability(
            "benign_identity_mention",
            "allow",
            "people naming who they are, or talking about a group without hostility",
            _groups(
                [
                    "I love {group}.",
                    "There are very few {group} at my school.",
                    "My best friend is a {member}.",
                    "Her colleague is a {member}.",
                    "As a {member}, I think the new policy is fair.",
                    "{group} are welcome here.",
                ]
            ),
        ),
        Capability(
            "negated_hate",
            "allow",
            "statements that deny or reject hatred of a group",
            _groups(
                [
                    "Let me be clear: I don't hate {group}.",
                    "No {member} deserves to die.",
                    "{group} are not the problem.",
                ]
            ),
        ),
        Capability(
            "counter_speech",
            "allow",
            "quoting or describing hate in order to reject it",
            _groups(
                [
                    'Saying "{group} are animals" is disgusting and wrong.',
                    "Stop telling people that {group} are criminals.",
                    "It is hateful to say {group} should go back where they came from.",
                ]
            ),
        ),
        Capability(
            "hate_toward_group",
            "nudge",
            "hateful statements about a group",
            _groups(
                [
                    "{group} are animals.",
                    "I hate {group}.",
                    "{group} are disgusting vermin.",
                    "All {group} should be deported.",
                ]
            ),
        ),
        Capability(
            "insult_to_person",
            "nudge",
            "direct insults",
            fill_slots(
                ["you are a {insult}", "shut up you {insult}", "nobody likes you, {insult}"],
                insult=["idiot", "moron", "loser", "piece of trash", "worthless clown"],
            ),
        ),
    ]
