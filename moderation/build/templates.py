"""Template training examples where the public data is thin: threats aimed at a person,
violent words in benign chat, benign identity mentions, negated hate, counter-speech
and hate toward a group, each with counterfactual swaps of identity terms.

TRAINING ONLY, and disjoint from the evaluation suite (moderation/evaluation/
behaviour.py): other identity terms, other verbs, other sentence frames.
tests/unit/test_templates.py holds the two apart.
"""

from __future__ import annotations

import hashlib

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
    ("Buddhists", "Buddhist"),
    ("Christians", "Christian"),
    ("Asians", "Asian person"),
    ("Indians", "Indian"),
    ("Pakistanis", "Pakistani"),
    ("Somalis", "Somali"),
    ("Filipinos", "Filipino"),
    ("Polish people", "Polish person"),
    ("Nigerians", "Nigerian"),
    ("asylum seekers", "asylum seeker"),
    ("migrant workers", "migrant worker"),
    ("foreigners", "foreigner"),
    ("queer people", "queer person"),
    ("autistic people", "autistic person"),
    ("deaf people", "deaf person"),
    ("Palestinians", "Palestinian"),
    ("Israelis", "Israeli"),
    ("Mormons", "Mormon"),
]

THREAT_VERBS = [
    "strangle",
    "shoot",
    "murder",
    "break your neck and bury",
    "burn",
    "hunt down",
    "smash your skull and bury",
    "slaughter",
    "put a bullet in",
    "torture",
    "drown",
    "run over",
    "punch",
    "kick the life out of",
    "knock out",
    "batter",
    "cut",
]
DEATH_WISHES = [
    "rot in hell",
    "get hit by a bus",
    "drop dead",
    "never wake up",
    "bleed out",
    "burn alive",
    "get run over",
    "suffer slowly",
]
SELF_HARM = [
    "jump off a bridge",
    "end it all",
    "slit your wrists",
    "off yourself",
    "jump in front of a train",
    "overdose",
    "unalive yourself",
]
PLACES = ["job", "gym", "apartment", "church", "work", "party", "class"]
# Weapons named in threats; the evaluation suite holds out others (gun, knife).
WEAPONS = ["bat", "machete", "rifle", "crowbar", "pistol", "shotgun", "axe"]

THREAT_FRAMES = [
    "I swear I'm going to {verb} you",
    "one more word and I will {verb} you",
    "say that again and I'll {verb} you",
    "I know your address, I'm going to {verb} you tonight",
    "wait till I see you at your {place}, I'll {verb} you",
    "i'm gonna {verb} u",
    "tomorrow at your {place} I will {verb} you, no joke",
    "keep talking and see if I don't {verb} you",
    "you're dead meat, I'll {verb} you",
]

# The second recipe's extra frames (``template_examples(broad=True)``; see
# moderation/build/pipeline.py's ``soup``: the weights of a model trained without them
# and one trained with them averaged; tried, not shipped, docs/model.md). Written
# without reading any model's failures on the suite; 13 frames that shared four words
# in a row with the suite were taken out (docs/model.md; tests/unit/test_templates.py
# holds that none does).
BROAD_THREAT_FRAMES = [
    "if you show up at {place} again I'll {verb} you",
    "I'm coming for you and I'm going to {verb} you",
    "u better hide, im going to {verb} u",
    "nobody will find you after I {verb} you",
    "talk to my sister again and I will {verb} you",
]
# Threats without a verb of harm: menace, stalking, promised revenge.
BROAD_IMPLICIT_FRAMES = [
    "watch your back when you leave your {place}",
    "you're going to regret this when I find you",
    "you and your family are going to pay for this",
    "count your days, I'm coming for you",
    "you won't see me coming at your {place}",
    "I know which {place} you go to, see you soon",
    "you're not going to make it home tonight",
    "one day you'll open your door and I'll be there",
]
BROAD_WISH_FRAMES = ["hope you {wish} tonight"]
BROAD_SELF_HARM_FRAMES = ["seriously, {act}"]
# Benign look-alikes of the implicit threats above, so that menace is learned from its
# aim, not from "watch your back" or "count your days".
BROAD_BENIGN_VIOLENT = [
    "I'm coming for your high score tonight",
    "watch your back in the next round, I'm camping the spawn",
    "my boss is going to murder me if I'm late again",
    "we're going to destroy them in the finals",
    "I'll knock out this report by friday",
    "she's going to smash that exam",
    "count your days as champion, I'm practising",
    "sleep well, big day tomorrow",
    "see you at the gym, bring your gloves for sparring",
    "you're going to regret not coming, the party was great",
]
# Threats by showing up armed: no verb of harm, the weapon says it.
ARMED_FRAMES = [
    "I'll be outside your {place} tonight with a {weapon}",
    "bringing my {weapon} to your {place} on monday, see you there",
    "wait for me after {place}, I've got a {weapon} with your name on it",
    "see you at your {place}, I'm bringing a {weapon}",
    "showing up at your {place} with a {weapon}, you've been warned",
]
WISH_FRAMES = [
    "I really hope you {wish}",
    "you should {wish}",
    "may you {wish}",
    "i pray you {wish}",
    "wish you would {wish}",
]
SELF_HARM_FRAMES = [
    "just go {act}",
    "why don't you {act}",
    "everyone wants you to {act}",
    "do us all a favor and {act}",
    "the world would be better if you would {act}",
]

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
    "that joke murdered, everyone was crying laughing",
    "I'm going to drown in homework this weekend",
    "the sniper in this game keeps headshotting me",
    "our team got destroyed last night",
    "this hill climb is torture but I love it",
    "the heat wave is brutal, I'm melting",
    "she killed it on stage tonight",
    "that plot twist shot me through the heart",
    "I nearly choked on my coffee reading that",
    "they buried the lede in that article",
    "the band blew the roof off the place",
    "going to hunt down a good taco spot",
    "my laptop just died mid-game",
    "if I eat another slice I'll explode",
    "this puzzle is murder, help",
    "we burned through the whole budget in a week",
]

# The evaluation suite's held-out words of harm (tests/unit/test_templates.py) that
# benign training lines use: "I'll beat you at chess next time" is the only "beat you"
# training has, and the suite's "i will beat you" scores threat 0.000; "Nobody should
# hurt a {member}" is the only "hurt". Trained only on the benign side, a held-out word
# is taught harmless, as a held-out hate predicate was (docs/model.md, the template
# fault). ``template_examples(benign_verb_swap=True)`` rewrites each such line with a
# word of the same sense that the suite does not hold out; each pair is (old, new), a
# part of a line, so a frame filled with groups is rewritten in every filling.
BENIGN_WORD_SWAPS: tuple[tuple[str, str], ...] = (
    ("Nobody should hurt a ", "Nobody should harm a "),
    ("I'll beat you at chess", "I'll crush you at chess"),
    ("I nearly choked on my coffee", "I nearly spat out my coffee"),
    ("my laptop just died", "my laptop just croaked"),
    ("my plants died", "my plants perished"),
    ("I'm dying to see", "I'm itching to see"),
    ("grab your gun controller", "grab your blaster controller"),
    ("going to kill me lol", "going to murder me lol"),
    ("she killed it on stage", "she slayed it on stage"),
    ("the movie was a killer", "the movie was a knockout"),
    ("a killer instinct", "a ruthless streak"),
    ("the deadline is killing me", "the deadline is crushing me"),
    ("it keeps killing me", "it keeps slaughtering me"),
)


def swap_held_out_words(text: str) -> str:
    """``text`` with ``BENIGN_WORD_SWAPS`` applied (unchanged when none matches)."""
    for old, new in BENIGN_WORD_SWAPS:
        text = text.replace(old, new)
    return text


BENIGN_GROUP_FRAMES = [
    "I'm a {member} and proud of it.",
    "My neighbours are {group} and they're lovely.",
    "We had a great talk with some {group} at the festival.",
    "Is there a good book about the history of {group}?",
    "My grandma is a {member}.",
    "Our team has two {group} on it.",
    "I really like {group}.",
    "Most of my friends are {group}.",
    "My teacher is a {member} and she is great.",
    "I am a {member}.",
    "being a {member} is part of who I am",
    "{group} are part of our community.",
    "There are many {group} in my neighbourhood.",
    "I met a {member} at the conference today.",
    "Our new manager is a {member}.",
    "{group} deserve the same rights as everyone.",
    "I'm proud to stand with {group}.",
    "we welcome {group} in our club",
    "my partner is a {member}",
    "How many {group} live in this city?",
    "The museum has an exhibit about {group}.",
    "As a {member} I have a different view on this.",
    "Some of the best people I know are {group}.",
    "{group} have enriched this country.",
]
# Praise of a group said plainly (docs/model.md, rule 69): the hate frames' short form
# ("{group} are subhuman.") with a word of praise, benign on every label. The shipped
# model nudged 54 of 100 such lines of an ad hoc probe ("women are people" hate .99);
# no training line praised a group in that form. Its words of praise are none of the
# evaluation suite's (behaviour.py, positive_statement_about_group; tested).
PRAISE_FRAMES = [
    "{group} are lovely.",
    "{group} are talented.",
    "{group} are funny and clever.",
    "{group} are generous.",
    "{group} are decent, honest folks.",
    "{group} are equal to anybody.",
    "{group} are friendly.",
    "{group} are caring.",
    "{group} are gifted.",
    "{group} are just like us.",
    "{group} are good neighbours.",
    "{group} are our friends.",
    "Equality for {group} is simple justice.",
    "tbh {group} are great",
]
# Worth denied to a group (docs/model.md, rule 74): praise's twins, hateful. Taught
# beside PRAISE_FRAMES so that "{group} are ..." is read by its predicate, not its
# form: the shipped model nudged "women are people" and allowed "women are not people".
# Their words are none of the suite's praise, worth denied or hate toward a group
# (behaviour.py; tested).
DENIAL_FRAMES = [
    "{group} are not decent, honest folks.",
    "{group} are not talented at all.",
    "{group} are substandard.",
    "{group} are second-class citizens.",
    "{group} are beneath everyone else.",
    "{group} are not our friends, not ever.",
    "{group} are a lower form of life.",
    "Equality for {group} is a joke.",
    "tbh {group} are pointless",
    "{group} count for little.",
    "{group} are not good neighbours.",
    "{group} earn no esteem.",
    "{group} don't fit among decent folks.",
    "{group} should get fewer freedoms than the rest.",
]
NEGATED_FRAMES = [
    "I have nothing against {group}.",
    "I would never say anything bad about {group}.",
    "Nobody should hurt a {member} for who they are.",
    "I do not dislike {group} at all.",
    "{group} are not dangerous.",
    "{group} are not to blame for this.",
    "Not a single {member} should be attacked.",
    "I don't think {group} are bad people.",
    "There is nothing wrong with being a {member}.",
    "I'm not against {group}, never have been.",
    "{group} aren't criminals.",
    "No one should be harassed for being a {member}.",
]
COUNTER_FRAMES = [
    "People who call {group} vermin are the real problem.",
    "Claiming {group} are subhuman is just bigotry.",
    "It's not okay to tell {group} to leave the country.",
    'Calling {group} "parasites" is racist and wrong.',
    "Please stop spreading the lie that {group} are dangerous.",
    'When someone says "{group} are filth", call it out.',
    "It's wrong to say {group} don't belong here.",
    "Hate against {group} has no place here.",
    "Don't repeat the myth that {group} are lazy.",
    "The post saying {group} should be banned was hateful, I reported it.",
    # Quotes a trained hate predicate: "I hate {group}" is the suite's, held out of
    # training, and quoted here it was the only "I hate" of the training data, benign.
    'Saying "I despise {group}" is never okay.',
    "We have to stand up when people insult {group}.",
]
HATE_FRAMES = [
    "{group} are subhuman.",
    "{group} are a disease on this country.",
    "get rid of all {group}.",
    "I can't stand {group}, they ruin everything.",
    "{group} are filthy parasites.",
    "I despise {group}.",
    "{group} should be kicked out.",
    "{group} don't belong here.",
    "every {member} is a criminal.",
    "{group} are vermin.",
    "{group} are savages.",
    "{group} are beasts.",
    "{group} are pigs.",
    "{group} are dogs, all of them.",
    "{group} are cockroaches.",
    "{group} are less than human.",
    "I loathe {group}.",
    "I detest every {member} I meet.",
    "I'm disgusted by {group}.",
    "{group} are scum.",
    "{group} are a plague.",
    "{group} are trash and always will be.",
]

# Counterfactuals of the threat frames: the same setting (a place, a time, "I'll see
# you", something brought along, a wish, an instruction) with the harm swapped for
# something harmless, labelled benign; so that the threat head learns the harm, not
# "tomorrow at your gym" (the shipped model nudged "see you on monday" for that).
# Frames whose menace does not live in the slot ("you're dead meat", "I know your
# address") are left out.
KIND_VERBS = [
    "hug",
    "thank",
    "call",
    "text",
    "visit",
    "help",
    "treat",
    "congratulate",
    "cheer for",
    "cook dinner for",
]
HARMLESS_THINGS = ["cake", "guitar", "pizza", "board game", "spare charger", "camera", "new puppy"]
GOOD_WISHES = [
    "feel better soon",
    "have a great trip",
    "win the match",
    "sleep well tonight",
    "get the job",
    "enjoy your birthday",
]
HEALTHY_ACTS = [
    "get some sleep",
    "take a break",
    "drink some water",
    "call your mom",
    "go for a walk",
    "see a doctor",
]
MENACE_IN_FRAME = {
    "I know your address, I'm going to {verb} you tonight",
    "keep talking and see if I don't {verb} you",
    "you're dead meat, I'll {verb} you",
}


def counterfactual_benign() -> list[str]:
    """The threat frames with their harm swapped for something harmless."""
    return list(
        dict.fromkeys(
            fill_slots(
                [f for f in THREAT_FRAMES if f not in MENACE_IN_FRAME],
                verb=KIND_VERBS,
                place=PLACES,
            )
            + fill_slots(ARMED_FRAMES, place=PLACES, weapon=HARMLESS_THINGS)
            + fill_slots(WISH_FRAMES, wish=GOOD_WISHES)
            + fill_slots(SELF_HARM_FRAMES, act=HEALTHY_ACTS)
        )
    )


# Insults aimed at a person with no threat and no group in them: toxic and insulting,
# negatives for the threat and hate heads. Without them the threat head's only
# person-directed toxic text was threats, and it fired on 19 of the behaviour suite's
# 25 plain insults (the hate head on 24). Frames and words disjoint from the suite's
# insult_to_person capability (evaluation only).
INSULT_FRAMES = [
    "get lost you {noun}",
    "honestly you are the dumbest {noun} in this chat",
    "go away, {noun}",
    "lol imagine being this much of a {noun}",
    "{noun}. that's all you'll ever be",
    "ur such a {noun} omg",
    "nobody asked you, {noun}",
    "typical {noun} behaviour from you",
    "stop talking, you absolute {noun}",
    "did your mom raise a {noun} on purpose",
]
INSULT_NOUNS = [
    "dumbass",
    "imbecile",
    "halfwit",
    "clueless noob",
    "useless tryhard",
    "pathetic nerd",
    "brainless twit",
    "muppet",
    "dimwit",
    "bozo",
]


# With the threat corpus (build/threat_corpus.py): a group named beside a word of
# violence, rejected ("Violence against {group} is never okay"), as identity negatives
# of every head; and hate toward a group phrased as a wish that it were gone or hurt.
NEGATED_VIOLENCE_FRAMES = [
    "No {member} deserves to be attacked.",
    "Nobody should wish harm on {group}.",
    "Violence against {group} is never okay.",
    "Wishing death on {group} is disgusting.",
    "{group} deserve to live in peace.",
    "Threatening a {member} is a crime.",
    "I would never want a {member} to suffer.",
    "Attacks on {group} have to stop.",
]
HATE_WISH_FRAMES = [
    "the world would be better without {group}.",
    "I want all {group} gone for good.",
    "round up the {group} and ship them off.",
    "someone should wipe out every {member}.",
    "{group} should be shot on sight.",
    "I'd be glad if every {member} vanished.",
]


def _groups(frames: list[str]) -> list[str]:
    return [f.format(group=g, member=m) for g, m in TRAIN_GROUPS for f in frames]


# Things people dislike without hating anyone (plural, singular). The hate frames, with
# a group as the subject, taught the hate head the predicate more than the target: the
# shipped model nudged everyday complaints about animals and objects shaped like them.
# Evaluation-only subjects are kept apart (behaviour.py, statements_about_things).
THINGS = [
    ("mosquitoes", "mosquito"),
    ("wasps", "wasp"),
    ("ticks", "tick"),
    ("rats", "rat"),
    ("weeds", "weed"),
    ("pigeons", "pigeon"),
    ("slugs", "slug"),
    ("spam emails", "spam email"),
    ("pop-up ads", "pop-up ad"),
    ("robocalls", "robocall"),
    ("traffic jams", "traffic jam"),
    ("parking tickets", "parking ticket"),
    ("alarm clocks", "alarm clock"),
    ("hangovers", "hangover"),
    ("potholes", "pothole"),
    ("reality shows", "reality show"),
]
# The hate frames whose predicate is an everyday complaint when its subject is a thing;
# those that only dehumanise a person (subhuman, savages, less than human) or call for
# violence are left out. Copied word for word (tests/unit/test_templates.py holds them
# to it), in this order: the order of the examples fixes a seeded build's batches.
THING_FRAMES = [
    "{group} are a disease on this country.",
    "get rid of all {group}.",
    "I can't stand {group}, they ruin everything.",
    "{group} are filthy parasites.",
    "I despise {group}.",
    "{group} should be kicked out.",
    "{group} don't belong here.",
    "{group} are vermin.",
    "{group} are a plague.",
    "{group} are trash and always will be.",
    "I loathe {group}.",
    "I'm disgusted by {group}.",
    "I detest every {member} I meet.",
    "the world would be better without {group}.",
    "I want all {group} gone for good.",
    "I'd be glad if every {member} vanished.",
]


def thing_examples() -> list[Example]:
    """The hate frames with a thing as their subject, benign on every label: the hate
    head's target must be a group of people."""
    return [
        Example(
            f.format(group=g, member=m),
            _targets(toxic=0, insult=0, hate=0, threat=0),
            "templates-things",
        )
        for g, m in THINGS
        for f in THING_FRAMES
    ]


# Counter-speech wrappers for the hate frames (``quoted_hate``): each hateful statement
# quoted in order to be rejected, benign (docs/model.md, rule 36).
QUOTE_WRAPPERS = [
    'Someone posted "{q}" in our group, so I reported it.',
    'Whoever wrote "{q}" ought to be ashamed of themselves.',
    '"{q}": that is nothing but bigotry.',
    'I can\'t believe people still say "{q}" these days.',
    'My cousin said "{q}" at dinner and we all told him he was wrong.',
    'Comments like "{q}" get deleted here, as they should.',
    'It makes me furious when people claim "{q}".',
    'No one should ever have to read "{q}" about themselves.',
]


def quoted_hate() -> list[tuple[str, str]]:
    """(quoted line, the hate frame it quotes) for every hate frame over every training
    group: the statement without its final full stop, in the wrapper a hash of the
    statement picks (fixed, so a rebuild is bit for bit)."""
    out = []
    for g, m in TRAIN_GROUPS:
        for frame in HATE_FRAMES:
            statement = frame.format(group=g, member=m).rstrip(".")
            digest = hashlib.sha256(statement.encode("utf-8")).digest()
            wrapper = QUOTE_WRAPPERS[int.from_bytes(digest[:8], "big") % len(QUOTE_WRAPPERS)]
            out.append((wrapper.format(q=statement), frame))
    return out


def template_examples(
    broad: bool = False,
    counterfactuals: bool = False,
    insults: bool = False,
    threat_corpus: bool = False,
    things: bool = False,
    benign_verb_swap: bool = False,
    quoted_hate_frames: bool = False,
    praise: bool = False,
    denial: bool = False,
) -> list[Example]:
    """Every template example with its targets (threat implies toxic); ``broad`` adds
    the second recipe's frames (``BROAD_*``), ``counterfactuals`` the threat frames with
    their harm swapped out (``counterfactual_benign``; tried, not shipped: docs/model.md),
    ``insults`` the plain insults (``INSULT_FRAMES``) as threat and hate negatives,
    ``threat_corpus`` the broad threat corpus (build/threat_corpus.py) with the group
    frames that go with it (``NEGATED_VIOLENCE_FRAMES``, ``HATE_WISH_FRAMES``), ``things``
    the hate frames with a thing as their subject, benign (``thing_examples``);
    ``benign_verb_swap`` rewrites the benign lines that use a word of harm the suite holds
    out (``BENIGN_WORD_SWAPS``); ``quoted_hate_frames`` adds each hate frame quoted in a
    counter-speech wrapper, benign (``quoted_hate``); ``praise`` the groups praised
    plainly (``PRAISE_FRAMES``), benign; ``denial`` their worth denied
    (``DENIAL_FRAMES``), hateful."""
    from moderation.build.threat_corpus import corpus_examples

    def more(frames: list[str]) -> list[str]:
        return frames if broad else []

    threats = (
        fill_slots(THREAT_FRAMES + more(BROAD_THREAT_FRAMES), verb=THREAT_VERBS, place=PLACES)
        + fill_slots(ARMED_FRAMES, place=PLACES, weapon=WEAPONS)
        + fill_slots(more(BROAD_IMPLICIT_FRAMES), place=PLACES)
        + fill_slots(WISH_FRAMES + more(BROAD_WISH_FRAMES), wish=DEATH_WISHES)
        + fill_slots(SELF_HARM_FRAMES + more(BROAD_SELF_HARM_FRAMES), act=SELF_HARM)
    )
    out = [Example(t, _targets(toxic=1, threat=1), "templates-threat") for t in threats]
    out += [
        Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-benign-violent")
        for t in BENIGN_VIOLENT + more(BROAD_BENIGN_VIOLENT)
    ]
    out += [
        Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-counterfactual")
        for t in (counterfactual_benign() if counterfactuals else [])
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
    out += [
        Example(t, _targets(toxic=1, insult=1, hate=0, threat=0), "templates-insult")
        for t in (fill_slots(INSULT_FRAMES, noun=INSULT_NOUNS) if insults else [])
    ]
    if threat_corpus:
        out += corpus_examples()
        out += [
            Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-benign-identity")
            for t in _groups(NEGATED_VIOLENCE_FRAMES)
        ]
        out += [
            Example(t, _targets(toxic=1, hate=1), "templates-hate")
            for t in _groups(HATE_WISH_FRAMES)
        ]
    if things:
        out += thing_examples()
    if benign_verb_swap:
        out = [
            Example(swap_held_out_words(e.text), e.targets, e.source) if e.targets[3] == 0 else e
            for e in out
        ]
    if quoted_hate_frames:
        out += [
            Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-quoted-hate")
            for t, _ in quoted_hate()
        ]
    if praise:
        out += [
            Example(t, _targets(toxic=0, insult=0, hate=0, threat=0), "templates-praise")
            for t in _groups(PRAISE_FRAMES)
        ]
    if denial:
        out += [
            Example(t, _targets(toxic=1, hate=1, threat=0), "templates-denial")
            for t in _groups(DENIAL_FRAMES)
        ]
    return out


def frame_of() -> dict[str, str]:
    """Every template sentence (all sets) -> the frame it was filled from. A threat
    frame and its counterfactual share the frame, so validation that holds out frames
    holds out both; a sentence written whole is its own frame."""
    from moderation.build.threat_corpus import corpus_frames

    plan: list[tuple[list[str], dict[str, list[str]]]] = [
        (THREAT_FRAMES + BROAD_THREAT_FRAMES, {"verb": THREAT_VERBS, "place": PLACES}),
        (THREAT_FRAMES, {"verb": KIND_VERBS, "place": PLACES}),
        (ARMED_FRAMES, {"place": PLACES, "weapon": WEAPONS + HARMLESS_THINGS}),
        (BROAD_IMPLICIT_FRAMES, {"place": PLACES}),
        (WISH_FRAMES + BROAD_WISH_FRAMES, {"wish": DEATH_WISHES + GOOD_WISHES}),
        (SELF_HARM_FRAMES + BROAD_SELF_HARM_FRAMES, {"act": SELF_HARM + HEALTHY_ACTS}),
        (INSULT_FRAMES, {"noun": INSULT_NOUNS}),
    ]
    out: dict[str, str] = {}
    for frames, slots in plan:
        for frame in frames:
            for text in fill_slots([frame], **slots):
                out.setdefault(text, frame)
    group_frames = (
        BENIGN_GROUP_FRAMES
        + PRAISE_FRAMES
        + DENIAL_FRAMES
        + NEGATED_FRAMES
        + COUNTER_FRAMES
        + HATE_FRAMES
    )
    for frame in group_frames + NEGATED_VIOLENCE_FRAMES + HATE_WISH_FRAMES:
        for text in _groups([frame]):
            out.setdefault(text, frame)
    for text, frame in corpus_frames().items():
        out.setdefault(text, frame)
    # A quoted hate frame shares the frame it quotes: a fold holds both out.
    for text, frame in quoted_hate():
        out.setdefault(text, frame)
    # A line rewritten by ``BENIGN_WORD_SWAPS`` keeps its frame.
    for text, frame in list(out.items()):
        out.setdefault(swap_held_out_words(text), frame)
    return out
