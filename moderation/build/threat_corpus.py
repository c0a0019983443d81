"""A broad threat corpus: many frames of menace, each beside its harmless twin.

The first template sets (templates.py) teach threats from about twenty frames filled
with many verbs; the fine-tune learns those frames' settings ("at your {place}",
"tonight") as the threat, and reads a menace phrased any other way as harmless. This
set spreads the same number of examples over many more frames: direct harm in chat
phrasing, harm by a third party, death wishes, self-harm incitement, and menace with
no verb of harm at all, each written as a sentence that a person could send. Every
frame with a harmless reading is paired with it (the harm swapped for a kindness, the
menace for a plan), so that what the threat head learns is the harm, not the setting;
and benign messages that set a threat's scene (arriving, waiting, knowing where
someone is) are negatives in their own right.

TRAINING ONLY. Disjoint from the evaluation suite (moderation/evaluation/behaviour.py):
none of the suite's verbs of harm, weapons or places, none of its idioms of menace,
and no run of four words in common (tests/unit/test_templates.py).
"""

from __future__ import annotations

from itertools import cycle, islice

from moderation.build.datasets import Example, _targets

# What "I'll ..." does to the reader, and what its harmless twin does instead.
HARMS = [
    "break your jaw",
    "crack your skull open",
    "snap your neck",
    "cut your throat",
    "gut you like a fish",
    "bash your head in",
    "set you on fire",
    "leave you in a wheelchair",
    "rearrange your face",
    "stomp your face into the pavement",
    "shoot you in the head",
    "rip your throat out",
    "break every bone in your body",
    "bury you in the woods",
    "blow your brains out",
    "smash your teeth in",
    "poison your drink",
    "run you off the road",
]
KINDNESSES = [
    "give you a hug",
    "buy you a coffee",
    "help you move",
    "show you my new bike",
    "bring you some soup",
    "teach you to bake bread",
    "lend you my notes",
    "fix your bike",
    "take you to the movies",
    "cook you dinner",
    "walk you to the bus stop",
    "introduce you to my cousin",
    "pay you back",
    "drive you to the airport",
    "send you the photos",
    "save you a seat",
]
WHEN = [
    "tonight",
    "tomorrow",
    "this weekend",
    "after work",
    "on friday",
    "next week",
    "after practice",
    "first thing in the morning",
]
SPOTS = ["flat", "dorm", "workplace", "front door", "car", "gym", "job", "apartment"]

# Frames of a first-person act done to the reader: {act} is a harm or a kindness.
ACT_FRAMES = [
    "I'm going to {act} {when}",
    "I will {act}, mark my words",
    "I'm gonna find you {when} and {act}",
    "swear to god I'll {act}",
    "the second I see you I'll {act}",
    "I'm going to wait at your {spot} and {act}",
    "me and the boys are going to {act} {when}",
    "my cousin is going to {act} {when}",
    "I've been planning how to {act}",
    "{when} I'll come round to {act}",
    "I promise I'll {act} {when}",
    "when I get my hands on you I'm going to {act}",
    "ill {act} lol watch me",
    "just wait, I'll {act}",
    "first chance I get I'm going to {act}",
    "don't worry, I'll {act} soon enough",
]
# Frames whose menace is in the frame itself: no harmless twin.
ACT_FRAMES_MENACING = [
    "next time you open your mouth I'll {act}",
    "talk to me like that again and I'll {act}",
    "keep this up and I'll {act}",
    "come near my sister again and I'll {act}",
    "block me all you want, I'll still {act}",
    "ur gonna get it, ima {act}",
    "give me one reason not to {act}",
    "no cop can protect you, I'll {act}",
]

# Death wishes, and the good wishes that share their frames.
WISHES = [
    "get hit by a train",
    "crash your car into a wall",
    "get mauled by a dog",
    "catch a stray bullet",
    "fall down the stairs and break your neck",
    "drown in the lake",
    "burn in a fire",
    "suffocate in your sleep",
    "get eaten by sharks",
    "waste away in a hospital bed",
    "never see your next birthday",
    "rot in a ditch",
]
GOOD_WISHES = [
    "get the promotion",
    "have the best holiday",
    "recover quickly after the surgery",
    "ace the interview",
    "find your lost cat",
    "sleep in tomorrow",
    "win the lottery",
    "have a lovely wedding",
    "get into your dream uni",
    "make it home safe",
]
WISH_FRAMES = [
    "honestly hope you {wish}",
    "i want you to {wish}",
    "can't wait till you {wish}",
    "praying that you {wish}",
    "the whole group will celebrate when you {wish}",
    "nothing would make me happier than if you {wish}",
]
WISH_FRAMES_MENACING = ["hope u {wish} slowly", "you better {wish} before I find you"]

# Self-harm incitement, and the care that shares its frames.
SELF_HARM_ACTS = [
    "swallow a bottle of pills",
    "step in front of a bus",
    "leap off a rooftop",
    "take your own life",
    "stop breathing forever",
    "cut yourself deeper",
    "starve yourself to death",
    "delete yourself from this earth",
    "end your miserable life",
    "put a rope around your neck",
    "walk into the sea and keep going",
]
CARE_ACTS = [
    "get some rest",
    "drink some tea",
    "talk to someone you trust",
    "go to bed early",
    "stretch your legs",
    "eat something warm",
    "take a day off",
    "call a friend",
]
SELF_HARM_FRAMES = [
    "go {act}, seriously",
    "the best thing you could do is {act}",
    "pls {act}",
    "u should really {act}",
    "everyone here is waiting for you to {act}",
    "honestly just {act} tonight",
]
SELF_HARM_FRAMES_MENACING = [
    "why not {act} and spare us",
    "{act}. no one will notice",
    "you're worthless, {act}",
]

# Menace with no verb of harm, each beside a harmless sentence of the same shape.
IMPLICIT_PAIRS = [
    ("you're living on borrowed time, pal", "my phone is living on borrowed time, 3% battery"),
    (
        "say your prayers tonight, it's your last",
        "say your prayers tonight, the exam is brutal lol",
    ),
    ("they'll need dental records to identify you", "they'll need a forklift to move this couch"),
    (
        "hope you like hospital food, you'll be eating it for months",
        "hope you like spicy food, I made a huge curry",
    ),
    (
        "you'll be eating through a straw when I'm done with you",
        "you'll be eating leftovers for a week when I'm done cooking",
    ),
    ("your mom will be picking out a casket soon", "your mom will be picking us up at 6"),
    (
        "pity if something happened to your little sister on her walk home",
        "pity the rain ruined your little sister's picnic",
    ),
    (
        "I know what time you get off work, and I'll be waiting",
        "I know what time you get off work, dinner will be ready",
    ),
    ("you have no idea what's coming for you", "you have no idea what's coming for your birthday"),
    ("enjoy breathing while you still can", "enjoy the sunshine while you still can"),
    (
        "you won't be around much longer, I'll see to it",
        "you won't be around much longer? sad you're moving",
    ),
    ("last warning. next time it's your head", "last warning: the pizza is almost gone"),
    (
        "tick tock, your time is almost up, I'm coming",
        "tick tock, your time is almost up on the quiz",
    ),
    ("got a bullet here with your name on it", "got a birthday card here with your name on it"),
    (
        "I'd check under your car before you start it if I were you",
        "I'd check your tyres before the road trip if I were you",
    ),
    (
        "accidents happen to people who talk too much",
        "accidents happen, don't worry about the broken mug",
    ),
    (
        "you should be scared to walk home alone now",
        "you shouldn't walk home alone this late, let me drive you",
    ),
    ("enjoy your last christmas", "enjoy your christmas with the family"),
    ("they'll find you face down in a ditch", "they'll find you a seat near the front"),
    (
        "you're going to end up in the morgue",
        "you're going to end up in the final, you're that good",
    ),
    (
        "the next ambulance on your street will be for you",
        "the next bus on your street comes at 8",
    ),
    ("I'll be the last face you ever see", "I'll be the first face you see at arrivals"),
    (
        "tell your family you love them while you still can",
        "tell your family I said happy holidays",
    ),
    (
        "you'll be pushing up daisies before spring",
        "you'll be planting daisies in the garden this spring",
    ),
    (
        "I've been watching you leave your flat every morning",
        "I've been watching your cooking videos every morning",
    ),
    ("nobody will hear you scream out there", "nobody will hear you sing out there, go for it"),
    ("it'll be a closed casket funeral for you", "it'll be a closed book exam for you"),
    ("you'd better start running", "you'd better start running if you want to catch the bus"),
    (
        "next time there won't be anything left of you",
        "next time there won't be any cake left lol",
    ),
    (
        "you'll wake up in a hospital bed, if you wake up at all",
        "you'll wake up feeling great after this tea",
    ),
    ("sleep tight, I'm not far from your window", "sleep tight, see you at breakfast"),
    (
        "next time it's the trunk of my car for you",
        "your bag is already in the trunk of my car",
    ),
    ("one phone call and you disappear for good", "one phone call and the pizza arrives"),
    ("I hope you've written your will", "I hope you've written your essay"),
    ("they'll be scraping you off the road", "they'll be scraping the ice off the road tomorrow"),
    (
        "you're not leaving that parking garage in one piece",
        "you're not leaving without a slice of cake",
    ),
    ("I'll come for your kids next", "I'll come to your kids' party next week"),
    ("your little dog won't be barking much longer", "your little dog won't stop barking, so cute"),
    (
        "I have your address and nothing left to lose",
        "I have your address, the invite is in the post",
    ),
    ("run while you can", "run while you can, the sale ends at noon"),
]

# Arranging to meet: the setting of many threats, harmless on its own.
PLAN_FRAMES = [
    "see ya {when}",
    "meet you at your {spot} {when}",
    "on my way to your {spot}",
    "I'll be by your {spot} {when} to drop off the keys",
    "pick you up {when}?",
    "waiting for you downstairs, no rush",
    "I'm at the front gate, buzz me in",
    "let's grab lunch {when}",
    "come find me at the cafe {when}",
    "I'll be waiting by your {spot} {when}",
    "I'm right outside, come down when you're ready",
    "know where you'll be {when}? I'll come to you",
]
# Violent words in everyday chat.
BENIGN_VIOLENT = [
    "I'm going to murder this burger",
    "she slayed that presentation",
    "this exam destroyed me",
    "going to shoot some hoops after class",
    "my knees are wrecked after that run",
    "that cliffhanger is going to end me",
    "we got slaughtered 5-0 on saturday",
    "that horror movie scared me half to death",
    "I could strangle my brother for eating my fries lol",
    "ready to crush the competition tomorrow",
    "the final boss took me 40 tries, brutal",
    "my phone is dead, text me on the laptop",
    "I'm going to bury myself in blankets and sleep",
    "gonna set the grill on fire tonight, burgers for everyone",
    "that comedian absolutely destroyed the crowd",
    "my sister is going to break my neck if I miss her recital lol",
    "these new boots are going to break my ankles",
    "we're going to blow them away in the debate",
    "this heatwave will finish me off",
    "I'll snap a pic and send it",
    "he took a bullet for the team and did the dishes",
    "I'm dying to see the new season",
    "cut the onions thin and fry them",
    "the team needs a killer instinct in the second half",
]


def _rotate(values: list[str], start: int, n: int) -> list[str]:
    """``n`` values from ``values`` starting at ``start`` (wrapping): a frame gets a
    spread of slot values without the full product of every slot."""
    return list(islice(cycle(values[start % len(values) :] + values[: start % len(values)]), n))


def _fill(frames: list[str], slot: str, values: list[str]) -> list[tuple[str, str]]:
    """(sentence, frame) for every frame and value of ``slot``; the other slots
    ({when}, {spot}) take one value each, rotating with the frame and value."""
    out = []
    for i, frame in enumerate(frames):
        for j, value in enumerate(values):
            when = _rotate(WHEN, i + j, 1)[0]
            spot = _rotate(SPOTS, i * 3 + j, 1)[0]
            out.append((frame.format(**{slot: value}, when=when, spot=spot), frame))
    return out


def threats() -> list[tuple[str, str]]:
    """(threat, frame) for every threat sentence of the corpus."""
    return list(
        dict.fromkeys(
            _fill(ACT_FRAMES + ACT_FRAMES_MENACING, "act", HARMS)
            + _fill(WISH_FRAMES + WISH_FRAMES_MENACING, "wish", WISHES)
            + _fill(SELF_HARM_FRAMES + SELF_HARM_FRAMES_MENACING, "act", SELF_HARM_ACTS)
            + [(t, t) for t, _ in IMPLICIT_PAIRS]
        )
    )


def harmless_twins() -> list[tuple[str, str]]:
    """(benign sentence, frame): each threat frame with a harmless reading, filled
    with kindnesses, good wishes and care; the implicit threats' look-alikes share
    their threat's frame (so frame cross-validation holds out both)."""
    return list(
        dict.fromkeys(
            _fill(ACT_FRAMES, "act", KINDNESSES)
            + _fill(WISH_FRAMES, "wish", GOOD_WISHES)
            + _fill(SELF_HARM_FRAMES, "act", CARE_ACTS)
            + [(b, t) for t, b in IMPLICIT_PAIRS]
        )
    )


def plans() -> list[tuple[str, str]]:
    """(benign sentence, frame): arranging to meet, each frame over every {when} and
    {spot} it names."""
    out = []
    for frame in PLAN_FRAMES:
        whens = WHEN if "{when}" in frame else [""]
        spots = SPOTS if "{spot}" in frame else [""]
        for k, when in enumerate(whens):
            for spot in _rotate(spots, k, 2 if "{spot}" in frame else 1):
                out.append((frame.format(when=when, spot=spot), frame))
    return list(dict.fromkeys(out))


def corpus_examples() -> list[Example]:
    """Every example of the corpus with its targets (a threat is toxic; insult and hate
    are not known for it; every benign sentence is negative for all four labels)."""
    none = _targets(toxic=0, insult=0, hate=0, threat=0)
    out = [Example(t, _targets(toxic=1, threat=1), "templates-threat-corpus") for t, _ in threats()]
    out += [Example(t, none, "templates-threat-corpus-twin") for t, _ in harmless_twins()]
    out += [Example(t, none, "templates-threat-corpus-plan") for t, _ in plans()]
    out += [Example(t, none, "templates-benign-violent") for t in BENIGN_VIOLENT]
    return out


def corpus_frames() -> dict[str, str]:
    """Every corpus sentence -> its frame (benign violent chat: its own)."""
    out: dict[str, str] = {}
    for text, frame in threats() + harmless_twins() + plans():
        out.setdefault(text, frame)
    for text in BENIGN_VIOLENT:
        out.setdefault(text, text)
    return out
