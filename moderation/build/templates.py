"""Template training examples where the public data is thin: threats aimed at a person,
violent words in benign chat, benign identity mentions, negated hate, counter-speech
and hate toward a group, each with counterfactual swaps of identity terms.

TRAINING ONLY, and disjoint from the evaluation suite (moderation/evaluation/
behaviour.py): other identity terms, other verbs, other sentence frames.
tests/unit/test_templates.py holds the two apart.
"""

from __future__ import annotations

from moderation.build.datasets import Example, _targets
from moderation.evaluation.behaviour import fill_slots

# (plural, singular) -- none of these appear in the evaluation suite.
TRAIN_GROUPS = [
    ("Hindus", "Hindu"),
    ("Sikhs", "Sikh"),
    ("Latinos", "Latino"),
    ("lesbians", "lesbian"),
    ("bisexual people", "bisexual person"),
    ("Chinese people", "Chinese person"),
    ("Arabs", "Arab"),
    ("old people", "old person"),
    ("atheists", "atheist"),
    ("Catholics", "Catholic"),
    ("Africans", "African"),
    ("nonbinary people", "nonbinary person"),
    ("Native Americans", "Native American"),
    ("Roma", "Roma person"),
]

THREAT_VERBS = ["strangle", "shoot", "murder", "break your neck and bury", "burn", "hunt down"]
DEATH_WISHES = ["rot in hell", "get hit by a bus", "drop dead", "never wake up", "bleed out"]
SELF_HARM = ["jump off a bridge", "end it all", "slit your wrists", "off yourself"]
PLACES = ["job", "gym", "apartment", "church"]

THREAT_FRAMES = [
    "I swear I'm going to {verb} you",
    "one more word and I will {verb} you",
    "say that again and I'll {verb} you",
    "I know your address, I'm going to {verb} you tonight",
    "wait till I see you at your {place}, I'll {verb} you",
]
WISH_FRAMES = ["I really hope you {wish}", "you should {wish}", "may you {wish}"]
SELF_HARM_FRAMES = ["just go {act}", "why don't you {act}", "everyone wants you to {act}"]

BENIGN_VIOLENT = [
    "that workout absolutely murdered my legs",
    "this level is impossible, it keeps killing me",
    "we're going to slaughter them in the tournament",
    "lol I'm dead, that meme got me",
    "the deadline is killing me this week",
    "she shot down my idea in the meeting",
    "my plants died while I was on holiday",
    "I'll beat you at chess next time",
    "that song slaps so hard",
    "the movie was a killer, you should watch it",
    "I'm going to strangle this printer, it jammed again",
    "we bombed the presentation but it's fine",
    "grab your gun controller, game night at 8",
    "the battery is dead, can you charge it",
    "this spicy food is going to kill me lol",
    "just shoot me a message when you're free",
]

BENIGN_GROUP_FRAMES = [
    "I'm a {member} and proud of it.",
    "My neighbours are {group} and they're lovely.",
    "We had a great talk with some {group} at the festival.",
    "Is there a good book about the history of {group}?",
    "My grandma is a {member}.",
    "Our team has two {group} on it.",
]
NEGATED_FRAMES = [
    "I have nothing against {group}.",
    "I would never say anything bad about {group}.",
    "Nobody should hurt a {member} for who they are.",
]
COUNTER_FRAMES = [
    "People who call {group} vermin are the real problem.",
    "Claiming {group} are subhuman is just bigotry.",
    "It's not okay to tell {group} to leave the country.",
]
HATE_FRAMES = [
    "{group} are subhuman.",
    "{group} are a disease on this country.",
    "get rid of all {group}.",
    "I can't stand {group}, they ruin everything.",
]


def _groups(frames: list[str]) -> list[str]:
    return [f.format(group=g, member=m) for g, m in TRAIN_GROUPS for f in frames]


def template_examples() -> list[Example]:
    """Every template example with its targets (threat implies toxic)."""
    threats = (
        fill_slots(THREAT_FRAMES, verb=THREAT_VERBS, place=PLACES)
        + fill_slots(WISH_FRAMES, wish=DEATH_WISHES)
        + fill_slots(SELF_HARM_FRAMES, act=SELF_HARM)
    )
    out = [Example(t, _targets(toxic=1, threat=1), "templates-threat") for t in threats]
    out += [
        Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-benign-violent")
        for t in BENIGN_VIOLENT
    ]
    benign = _groups(BENIGN_GROUP_FRAMES + NEGATED_FRAMES + COUNTER_FRAMES)
    out += [
        Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-benign-identity")
        for t in benign
    ]
    out += [
        Example(t, _targets(toxic=1, hate=1, threat=0), "templates-hate")
        for t in _groups(HATE_FRAMES)
    ]
    return out
