"""Chat's idioms of violent words, slogans of support, and threats the model reads as
harmless, read as what they mean (docs/model.md, rules 121, 126, 130, 132, 134, 136,
138, 140, 141, 142, 143, 144, 145, 146, 147, 149, 150, 151, 153, 155, 156, 157).

"i'll hit you up later", "i'll shoot you a text", "break a leg tonight": friendly chat
whose idiom puts a violent verb on "you". The model learned "hit you" and "shoot you" as
threats and nudges them; the same idioms with "me" it mostly allows. Each idiom below is
matched as whole words, only where its own words close it off ("hit you up" not before
"with"; "shoot you" only before a thing sent), and rewritten as the plain words a reader
takes from it. Nothing else of the message is touched, so a threat beside an idiom is read
as before ("i'll hit you with a bat", "i'll shoot you in the face", "i'll set you on fire"
match nothing here). Rule 126 added "you're a lifesaver", "knock yourself out", "you're the
bomb", "i'd kill for a coffee", "go kill it at the interview", "fire away" and beating
someone at a game of a closed list ("i'll destroy you at chess"; "at school" is no game).

Rule 129 added fixed phrases of another kind the model misreads: slogans of support for a
group ("black lives matter", "trans women are women", "gay rights are human rights", "stop
asian hate", "gay pride"), which it reads as the hate frames' "{group} are ...". Each is
read only where it is the whole message (rule 130), and rewritten as a plain sentence of
support ("we stand with black people"). Rule 143 read praise of a group said whole so too
("gay people are awesome", "lesbians are valid", "trans people deserve respect", "protect
trans kids", "proud to be gay"), never after a negation or before other words. Rule 144
read the other way death and harm wished on a group with "deserve" ("muslims deserve to
die", "refugees belong in camps"), which the model allowed, as "all {group} should die",
only where the group begins a sentence (so "no muslim deserves to die" is the model's).
Rule 145 read hate said of a group behind a hedge of opinion ("i think muslims are
terrorists", "i'm just saying muslims are violent") without the hedge, and rule 146 a
group's humanity denied ("black people are not people", "muslim lives don't matter") as
"{group} are subhuman", where the group begins a sentence and the denial ends it. Rule 147
read harm and hate denied to a group, which the model nudged ("trans people don't deserve
to die", "refugees do not belong in cages", "jews are not greedy"), as "we stand with
{group}", where the group begins a sentence and the denial ends it. Rule 149 read hate
quoted or reported to reject it ('"muslims are violent" is a lie', "people who say muslims
are terrorists are bigots", "being gay is not a sin") with the hate put as "that", where
its sentence ends the message. Rule 151 read distrust and exclusion of a group, which the
model allowed ("i don't trust jews", "i'd never hire a muslim", "no muslims allowed"), as
"i hate {group}", where the group begins a sentence and ends it. Rule 155 read a defence
rule 147 reads, turned into hate in the next sentence ("jews don't deserve hate. they deserve
to die."), as the hate ("all jews should die."), before rule 147 reads the defence alone.
Rule 156 wrote every reading of support or defence without the mentions its sentence opens
with: to the model a leading mention says "a tweet", with a tweet's base rate of abuse, and
it nudged "@kim we stand with gay people"; threats and hate keep their mentions.
Rule 157 read hate condemned where its sentence ends the message ("homophobia is
disgusting", "i hate racists", "i hate people who hate immigrants"), which the model nudged
as the hate it names, as a stand against it ("i stand against homophobia").

The other way round, the table reads threats the model allows as the threats they are.
Rule 131 added threats said without a violent word ("i know where you live", "nobody would
miss you", "your days are numbered"), each read only where it is the message's last
sentence (mentions may follow it since rule 135), and an attack planned on a place ("gonna
shoot up the school") anywhere; rule 133 direct threats whose verb the model reads as
harmless ("i'll beat you up", "i'll hang you", "i'll hurt you"), with "i" or "we" and a
will-form, never after a negation; rule 137 the verbs "jump" and "rough up" read so too, and
threats of pursuit and reprisal ("i'll find you", "i'm coming for you", "keep talking and see
what happens", "you'll pay for this", "we know where your kids go to school"), anchored as
rule 131's are; rule 139 threats of being caught or of reprisal by others' hands ("don't let
me catch you alone", "you messed with the wrong person", "i'll send some guys to your
house"); rule 141 death wishes said softly ("please die", "go play in traffic", "someone
needs to put you down") and more verbs of a beating ("i'll lay you out", "i'll deck you");
rule 142 warnings of an attack on a school or workplace ("i'm bringing a knife to school",
"don't come to school tomorrow", "everyone at school will pay"); rule 150 veiled threats
that end the message ("don't make me hurt you", "count your days", "you're not safe
anywhere", "would be a shame if something happened to you", "you'll be six feet under");
rule 153 threats of reprisal said bare, by others' hands, or by what one would do, that end
the message ("i'll make you pay", "my brother will deal with you", "i have friends who can
find you", "you don't want to find out what i'll do", "someone should teach you a lesson").
Each is rewritten as a threat the model nudges ("i will come to your house and hurt you",
"i'll punch you").

Run last in the normalizer, after "u" is read "you" and evasions are undone.
"""

from __future__ import annotations

import re
from collections.abc import Callable

# What the model id gains where the idioms are read (after the weights' hash, before the
# threat head's readings).
# The table's version: ":2" since rule 126 read more idioms than rule 125's table, ":3"
# since rule 129 read slogans of support, ":4" since rule 131 read threats said without a
# violent word, ":5" since rule 133 read direct threats whose verb the model reads as
# harmless, ":6" since rule 135 read rule 131's threats before closing mentions, ":7" since
# rule 137 read threats of pursuit and reprisal and the verbs "jump" and "rough up", ":8"
# since rule 139 read threats of being caught and of reprisal by others' hands, ":9" since
# rule 141 read death wishes said softly, "put you down" and more verbs of a beating, ":10"
# since rule 142 read warnings of an attack on a school or workplace, ":11" since rule 143
# read praise of a group said whole as support, ":12" since rule 144 read death and harm
# wished on a group with "deserve" as hate, ":13" since rule 145 read hate said as an
# opinion without its hedge, ":14" since rule 146 read a group's humanity denied as hate,
# ":15" since rule 147 read harm and hate denied to a group as its defence, ":16" since rule
# 149 read hate quoted to reject it, ":17" since rule 150 read veiled threats said whole,
# ":18" since rule 151 read distrust and exclusion of a group as hate, ":19" since rule 153
# read reprisal said bare or by others' hands, ":20" since rule 155 read a defence turned
# into hate in the next sentence as the hate, ":21" since rule 156 wrote support and
# defences without the mentions their sentence opens with, ":22" since rule 157 read hate
# condemned as a stand against it.
IDIOMS_SUFFIX = "+idioms:22"


def model_id(base: str, normalized: bool, idioms: bool) -> str:
    """The id of ``base`` as the classifier runs it: ``+idioms:22`` where its normalizer
    (``normalized``) reads them (``idioms``)."""
    return base + IDIOMS_SUFFIX if normalized and idioms else base


_APOSTROPHE = "['\u2019]"
# Whom an idiom is aimed at, and whose thing it names.
_OBJ = rf"(?:you|me|him|her|them|us|ya|y{_APOSTROPHE}?all)"
_POSS = r"(?:your|my|his|her|their|our)"
_DO_NOT = rf"(?:don{_APOSTROPHE}?t|do\s+not)"
_START = r"(?<![\w@#'\u2019-])"
_END = r"(?![\w'\u2019-])"
# Things one sends or says: what "shoot you ..." and "hit you with ..." mean to pass on.
_SENT = (
    r"(?:texts?|messages?|msgs?|e-?mails?|mail|dms?|pms?|line|notes?|calls?|pics?|photos?|"
    r"pictures?|links?|invites?|invitations?|numbers?|address|addresses|details|info|"
    r"information|updates?|reply|replies|questions?|snaps?|videos?|vids?|selfies?|files?|"
    r"screenshots?|resume|list|reminders?|heads[ -]up|recs?|recommendations?|suggestions?|"
    r"tips?|songs?|playlists?|memes?|jokes?|facts?|quotes?|ideas?|news)"
)
_DETERMINER = r"(?:a|an|the|my|your|his|her|our|their|some|this|that|these|those)"
_ADJECTIVE = r"(?:quick|short|brief|little|few|new|good|fun|random)"
# A time soon after: what makes "i'll hit you back" a reply, not a blow returned.
_SOON = (
    r"(?:later|soon|tomorrow|tonight|today|asap|shortly|"
    r"in\s+(?:a|an)\s+(?:bit|sec|second|min|minute|few|moment|while|hour))"
)
_WILL = (
    rf"(?:{_APOSTROPHE}ll|\s+will|\s+gonna|\s+going\s+to|"
    rf"(?:{_APOSTROPHE}re|\s+are)\s+(?:gonna|going\s+to))"
)
_BEING = (
    rf"(?:you{_APOSTROPHE}?re|you\s+are|he{_APOSTROPHE}s|she{_APOSTROPHE}s|"
    rf"they{_APOSTROPHE}re|we{_APOSTROPHE}re|i{_APOSTROPHE}?m|i\s+am)"
)
_PLACE = r"(?:place|house|couch|apartment|flat|dorm|pad|sofa|floor)"
_GONE_TO = r"(?:gym|books|beach|pool|showers?|store|mall|club|town|slopes|shops|bar|bars)"

_SEND = {"shoot": "send", "shoots": "sends", "shooting": "sending", "shot": "sent"}
_TEXT = {"hit": "text", "hits": "texts", "hitting": "texting"}
_TEXT_BLOWN = {
    "blow": "text",
    "blows": "texts",
    "blew": "texted",
    "blowing": "texting",
    "blown": "texted",
}
_GO = {"hit": "go to", "hits": "goes to", "hitting": "going to"}
_LEAVE = {"hit": "leave", "hits": "leaves", "hitting": "leaving"}
_TAKE = {"shoot": "take", "shoots": "takes", "shooting": "taking", "shot": "took"}
_DO_GREAT = {"knock": "do great", "knocks": "do great", "knocking": "doing great"}
_STAY = {"crash": "stay", "crashes": "stays", "crashing": "staying", "crashed": "stayed"}
# Rule 126: beating someone at a game is winning against them (each verb's four forms).
_WIN = {
    form: meant
    for forms in (
        ("destroy", "destroys", "destroying", "destroyed"),
        ("crush", "crushes", "crushing", "crushed"),
        ("smash", "smashes", "smashing", "smashed"),
        ("wreck", "wrecks", "wrecking", "wrecked"),
        ("beat", "beats", "beating", "beaten"),
        ("murder", "murders", "murdering", "murdered"),
        ("kill", "kills", "killing", "killed"),
    )
    for form, meant in zip(
        forms, ("win against", "wins against", "winning against", "won against"), strict=True
    )
}
_GAME = (
    r"(?:(?:a\s+)?(?:game|round|match)\s+of\s+)?"
    r"(?:chess|checkers|cards|poker|pool|darts|bowling|tennis|ping\s+pong|golf|scrabble|"
    r"monopoly|uno|trivia|mario\s?kart|smash|fortnite|fifa|madden|2k|cod|overwatch|valorant|"
    r"minecraft|video\s+games)"
)
# Nothing but punctuation, an emoji or the end.
_MARK_OR_END = r"\s*(?:[^\w\s'\u2019-]|$)"
_SHOWN = rf"(?={_MARK_OR_END})"
# Where a sentence begins (the message's start, a sentence's end or a line break), and the
# mentions it opens with (rules 131 and 144-151).
_SENTENCE_BEGINS = r"(?:^|(?<=[.!?\u2026\r\n]))\s*(?:@[\w.]+\s+)*"


def _led(leads: str) -> str:
    """A sentence's start (``_SENTENCE_BEGINS``) and at most one lead word of ``leads``, as
    the group ``lead`` a rewrite keeps."""
    return rf"(?P<lead>{_SENTENCE_BEGINS}(?:(?:{leads}),?\s+)?)"


def _verb(table: dict[str, str]) -> Callable[[re.Match[str]], str]:
    """Group ``verb`` read through ``table``, the rest of the match as written."""

    def rewrite(m: re.Match[str]) -> str:
        start, end = m.span("verb")
        whole = m.group(0)
        at = m.start()
        return whole[: start - at] + table[m.group("verb").lower()] + whole[end - at :]

    return rewrite


def _fixed(words: str) -> Callable[[re.Match[str]], str]:
    return lambda m: words


def _compile(pattern: str) -> re.Pattern[str]:
    return re.compile(_START + pattern + _END, re.IGNORECASE)


# Rule 130: a slogan is read only where it is the whole message: from its start (after
# any mentions it opens with, and at most one lead word of a closed list) to its end,
# with nothing after it but "too", punctuation, emoji and spaces. Beside other words
# ("black lives matter? they're animals", "black lives matter is a terrorist group") it
# is left to the model: a rewrite there would take away what the other words refer to
# (rule 129).
_WHOLE_START = (
    r"^(?P<lead>\s*(?:@[\w.]+\s+)*(?:(?:yes|yeah|and|because|bc|cuz|"
    r"reminder\s+that|remember|still|always),?\s+)?)"
)
_WHOLE_END = r"(?P<too>\s+too)?(?=[^\w'\u2019-]*$)"
# Groups whose "... lives matter" is a slogan of support ("white lives matter" is one of
# white supremacy, and "all" / "blue" are answers the model already allows).
_LIVES = (
    r"(?:black|brown|indigenous|native|asian|trans|queer|disabled|muslim|jewish|"
    r"palestinian|israeli|immigrant|migrant|refugee)"
)
_RIGHTS = (
    rf"(?:gay|trans|lgbtq\+|lgbtq|lgbt|queer|women{_APOSTROPHE}s|womens|immigrant|refugee|"
    r"disability|civil)"
)
_PRIDE = r"(?:gay|lesbian|bi|trans|queer|lgbtq|lgbt)"
# Rule 143: a group named by an adjective ...
_GROUP_ADJECTIVE = (
    r"(?:gay|lesbian|bisexual|bi|pansexual|pan|asexual|ace|queer|transgender|trans|"
    r"non-?binary|enby|intersex|lgbtqia\+|lgbtq\+|lgbtq|lgbt|black|brown|asian|latino|latina|"
    r"latinx|hispanic|indigenous|native|muslim|jewish|sikh|hindu|arab|mexican|disabled|deaf|"
    r"blind|autistic|neurodivergent|immigrant|refugee|migrant)"
)
# ... before a word for people, or by a plural noun, or as "the ... community".
_PEOPLE = (
    r"people|folks|folk|men|women|kids|children|youth|teens|students|couples|families|"
    r"parents|friends|americans|artists|voices"
)
_PLURAL = (
    r"lesbians|bisexuals|muslims|jews|sikhs|hindus|immigrants|refugees|migrants|women|girls|"
    r"asians|latinos|latinas|hispanics|mexicans|arabs"
)
_GROUP = rf"(?:{_GROUP_ADJECTIVE}\s+(?:{_PEOPLE})|{_PLURAL})"
# Rule 144: a group wished harm, named so or as "gays", "blacks", "{adjective} ppl" ...
_HATED = rf"(?:{_GROUP_ADJECTIVE}\s+(?:{_PEOPLE}|ppl)|{_PLURAL}|gays|blacks)"
# ... where the sentence begins: after any mentions and at most one lead word ...
_SENTENCE_START = _led(
    r"i\s+think|honestly|tbh|imo|ngl|lol|lmao|fr|seriously|personally|i\s+believe"
)
# ... and what it is said to deserve, or where it is said to belong.
_HARM = (
    r"to\s+die|death|to\s+be\s+(?:killed|shot|hanged|hung|lynched|gassed|burned|beaten|raped|"
    r"tortured|executed|exterminated|wiped\s+out|enslaved|stoned|bombed|put\s+down|slaves)|"
    r"slavery|to\s+suffer|to\s+drown|to\s+burn|to\s+rot|to\s+starve|the\s+gas\s+chambers?|"
    r"the\s+death\s+penalty|another\s+holocaust|a\s+bullet|hell"
)
_CAGED = (
    r"camps|concentration\s+camps|cages|ovens|chains|gas\s+chambers|prison|jail|zoos|"
    r"the\s+kitchen"
)
# Rule 145: a hedge of opinion before hate said of a group ...
_HEDGE = (
    r"(?:i\s+(?:(?:really|honestly|genuinely|do|really\s+do|kinda|kind\s+of)\s+)?"
    r"(?:think|believe|feel\s+like|feel\s+that)|personally(?:\s+i\s+think)?|honestly|tbh|"
    rf"imo|imho|in\s+my\s+opinion|(?:i{_APOSTROPHE}?m\s+)?just\s+saying|no\s+offen[cs]e\s+but|"
    rf"i{_APOSTROPHE}?m\s+not\s+racist\s+but|call\s+me\s+crazy\s+but|"
    rf"let{_APOSTROPHE}?s\s+be\s+real|ngl|not\s+gonna\s+lie)"
)
# ... the hate said ...
_HATEFUL = (
    r"terrorists|violent|lazy|criminals|disgusting|gross|inferior|less\s+intelligent|stupid|"
    r"dumb|parasites|vermin|animals|savages|mentally\s+ill|sick|greedy|evil|pedophiles|"
    r"groomers|rapists|freeloaders|a\s+burden|subhuman|dirty|trash|scum|ugly|thieves|liars|"
    r"a\s+plague|a\s+disease|(?:ruining|destroying)\s+this\s+country"
)
# ... its plain words, for the gate ...
_HATEFUL_WORDS = (
    "terrorists",
    "violent",
    "lazy",
    "criminals",
    "disgusting",
    "gross",
    "inferior",
    "intelligent",
    "stupid",
    "dumb",
    "parasites",
    "vermin",
    "animals",
    "savages",
    "mentally",
    "sick",
    "greedy",
    "evil",
    "pedophiles",
    "groomers",
    "rapists",
    "freeloaders",
    "burden",
    "subhuman",
    "dirty",
    "trash",
    "scum",
    "ugly",
    "thieves",
    "liars",
    "plague",
    "disease",
    "ruining",
    "destroying",
)
# ... and where the sentence ends: a mark, an emoji, the end, or a closing word.
_SAID = rf"(?={_MARK_OR_END}|\s+(?:lol|lmao|tbh|fr|ngl)(?:{_MARK_OR_END}))"
# Rule 146: a group's humanity denied, where the sentence ends (rule 145's end).
_NOT_PEOPLE = (
    rf"(?:(?:are|r)\s+not|aren{_APOSTROPHE}?t)\s+(?:(?:even|real|really)\s+)?"
    r"(?:real\s+people|people|human\s+beings|humans|human)"
)
# Praise said of a group (never "people", "human", "matter" or "rights": rule 143).
_PRAISE = (
    r"awesome|amazing|wonderful|great|beautiful|gorgeous|lovely|valid|kind|strong|brave|"
    r"talented|incredible|fantastic|cool|welcome(?:\s+here)?|loved|the\s+best|inspiring|"
    r"resilient|precious|valued|wholesome"
)
_DESERVED = (
    r"respect|love|dignity|kindness|equality|equal\s+rights|the\s+same\s+rights|rights|"
    r"better|protection|safety|a\s+safe\s+home|to\s+be\s+happy|to\s+be\s+safe|"
    r"to\s+feel\s+safe|to\s+be\s+loved|to\s+be\s+respected|to\s+live\s+in\s+peace"
)


# Rule 147: harm denied to a group, read as its defence where a sentence ends with it (a
# full stop, "!", an ellipsis, an emoji, a line break or the end; never a comma, a colon,
# a dash or "?": "jews don't deserve to die, they deserve worse" is left to the model) ...
_STATED = r"(?=\s*(?:[.!\u2026\r\n]|[^\w\s\x00-\x7f\u2010-\u201f]|$))"
# Rule 149: the same, and nothing after it in the message but these marks, emoji, spaces
# and mentions ("that's a lie. they are worse" would lose what "they" refers to).
_STATED_LAST = r"(?=(?:\s|[.!\u2026]|[^\w\s\x00-\x7f\u2010-\u201f]|@[\w.]*\w)*$)"
_DOES_NOT = rf"(?:{_DO_NOT}|doesn{_APOSTROPHE}?t|does\s+not)"
# ... what a group is said not to deserve: rule 144's harms and a closed list more ...
_SPARED = (
    rf"{_HARM}|hate|to\s+be\s+(?:murdered|attacked|harassed|bullied|persecuted|abused|mocked|"
    r"hated|treated\s+like\s+(?:animals|trash|garbage))"
)
# ... said not to deserve it, or not to belong in rule 144's places ...
_NOT_DESERVED = rf"{_DOES_NOT}\s+(?:deserve\s+(?:{_SPARED})|belong\s+in\s+(?:{_CAGED}))"
# ... what it should not suffer, and for what or at whose hands ...
_NOT_SUFFER = (
    rf"(?:should\s+not|shouldn{_APOSTROPHE}?t)\s+(?:be\s+(?:killed|shot|murdered|beaten|"
    r"attacked|harassed|raped|lynched|tortured|bullied|hurt|persecuted|"
    r"locked\s+(?:up\s+)?in\s+(?:cages|camps)|sent\s+to\s+camps)|have\s+to\s+die)"
    r"(?:\s+(?:for\s+(?:their\s+(?:faith|religion|skin)|who\s+they\s+(?:are|love)|"
    r"being\s+[\w'\u2019-]+|existing)|by\s+(?:the\s+)?(?:police|cops)|at\s+sea))?"
)
# ... and the hate it is said not to be (rule 145's words and three more).
_HATEFUL_MORE = rf"(?:{_HATEFUL}|predators|thugs|invaders)"
_HATEFUL_MORE_WORDS = (*_HATEFUL_WORDS, "predators", "thugs", "invaders")
_NOT_HATEFUL = rf"(?:(?:are|r)\s+not|aren{_APOSTROPHE}?t)\s+(?:all\s+)?{_HATEFUL_MORE}"
# Rule 148: hate quoted or reported to reject it, read with the hate put as "that". The
# hate is rule 145's statement only ...
# Rule 157: a hate named, and who holds one, condemned.
_HATES_NAMED = (
    "racism",
    "homophobia",
    "transphobia",
    "biphobia",
    "antisemitism",
    "anti-semitism",
    "islamophobia",
    "sexism",
    "misogyny",
    "xenophobia",
    "bigotry",
    "ableism",
    "hate",
)
_CONDEMNED = (
    r"(?:(?:so|just|really|truly|absolutely)\s+)?(?:wrong|evil|disgusting|gross|vile|sick|"
    r"sickening|unacceptable|cancer|a\s+cancer|a\s+disease|awful|terrible|horrible|pathetic|"
    r"shameful|disgraceful|ugly|trash|garbage|nasty|toxic)|(?:never|not)\s+ok(?:ay)?"
)
_DETEST = rf"i\s+(?:hate|can{_APOSTROPHE}?t\s+stand|cannot\s+stand|despise|detest|loathe)\s+"
_BIGOTS = (
    r"racists|homophobes|transphobes|bigots|nazis|neo-?nazis|sexists|misogynists|antisemites|"
    r"islamophobes|xenophobes|white\s+supremacists"
)
_DETEST_WORDS = ("hate", "stand", "despise", "detest", "loathe")


# Rule 155: rule 147's three defences (group ``g``), and what the next sentence says "they"
# deserve or are when it turns on the group.
_DEFENCE = rf"(?:all\s+)?(?P<g>{_HATED})\s+(?:{_NOT_DESERVED}|{_NOT_SUFFER}|{_NOT_HATEFUL})"
_TURNED = (
    r"they(?:\s+(?:all\s+)?(?:deserve\s+(?:"
    + _HARM
    + r")|belong\s+in\s+(?:"
    + _CAGED
    + r"|graves?|the\s+ground))|\s+should\s+(?:all\s+)?(?:die|be\s+(?:killed|shot|murdered|"
    r"beaten|hanged|hung|lynched|executed|exterminated|gassed|burned|tortured|raped|attacked|"
    rf"wiped\s+out))|(?:\s+(?:are|r)|{_APOSTROPHE}re)\s+(?:(?:all|just)\s+)?(?P<w>"
    + _HATEFUL_MORE
    + r"|rats|filth|worthless))"
)
_HATE_SAID = rf"(?:all\s+)?{_HATED}\s+(?:are|r)\s+(?:(?:all|just|so|really)\s+)?{_HATEFUL_MORE}"
_QUOTED = rf"(?:\"{_HATE_SAID}[.!]?\"|'{_HATE_SAID}[.!]?'|\u201c{_HATE_SAID}[.!]?\u201d)"
# ... rejected as a lie or as hate ...
_REJECTED = (
    r"(?:is|was)\s+(?:(?:just|simply|such)\s+)?(?:(?:a|an)\s+)?(?:(?:old|tired|dangerous|"
    r"harmful|racist|sexist|antisemitic|homophobic|transphobic|islamophobic|bigoted|hateful|"
    r"total|complete)\s+)*(?:lie|myth|trope|stereotype|false|untrue|not\s+true|wrong|"
    r"not\s+okay|not\s+ok|racist|sexist|antisemitic|homophobic|transphobic|islamophobic|"
    r"xenophobic|ableist|bigoted|bigotry|hateful|hate\s+speech|harmful|nonsense|bs|bullshit|"
    r"propaganda|debunked|disgusting|vile)(?:\s+and\s+you\s+know\s+it)?"
)
# ... or its speakers so judged ...
_JUDGED = (
    r"(?:are|is)\s+(?:bigots|racists|sexists|homophobes|transphobes|the\s+problem|wrong|"
    r"ignorant|disgusting)|need\s+(?:help|to\s+read\s+more|to\s+educate\s+themselves)|"
    r"should\s+be\s+ashamed(?:\s+of\s+themselves)?"
)
# ... or said in disbelief that someone said it.
_DISBELIEF = (
    rf"(?:i\s+)?(?:can{_APOSTROPHE}?t|cannot|can\s+not)\s+believe\s+(?:he|she|they|someone|"
    r"somebody|my\s+[\w-]+|this\s+guy|that\s+guy)\s+(?:(?:just|actually|literally|really)\s+)?"
    r"(?:said|says|thinks|tweeted|posted|wrote)"
)
# Being who one is, said to be no sin, crime or illness.
_NO_SIN = (
    r"(?:a\s+)?(?:sin|crime|disease|illness|mental\s+illness|disorder|choice|phase|wrong|"
    r"bad\s+thing)"
)
# Rule 151: a group distrusted or shut out, read as "i hate" it; a member of a group ...
_MEMBER = (
    rf"an?\s+(?:{_GROUP_ADJECTIVE}\s+(?:person|man|woman|guy|girl|boy|kid)|muslim|jew|sikh|"
    r"hindu|immigrant|refugee|migrant|mexican|arab|asian|latino|latina|hispanic|lesbian|woman)"
)
# ... and where one does not want a group.
_KEPT_FROM = (
    r"neighborhood|neighbourhood|country|town|city|school|street|building|house|kids|"
    r"children|family|bathroom|church|team"
)


def _slogan(pattern: str) -> re.Pattern[str]:
    return re.compile(_WHOLE_START + pattern + _WHOLE_END, re.IGNORECASE)


# Rule 156 (rule 154's V, judged again on rule 155's table): the mentions a sentence opens
# with. A leading mention says "a tweet" to the model, with a tweet's base rate of abuse
# (moderation/normalize.py), and it nudged support the table had read ("@kim we stand with
# gay people"); support and defences are written without them (threats and hate keep theirs).
_MENTION = re.compile(r"@[\w.]+\s+")


def _unaddressed(m: re.Match[str]) -> str:
    """The group ``lead`` of ``m`` (the sentence's start and lead word) without the
    mentions it holds."""
    return _MENTION.sub("", m.group("lead"))


def _support(meant: Callable[[re.Match[str]], str]) -> Callable[[re.Match[str]], str]:
    """A slogan's rewrite: its lead word without its mentions (rule 156), the sentence of
    support, and "too" if it had it."""
    return lambda m: _unaddressed(m) + meant(m) + (m.group("too") or "")


def _in_sentence(pattern: str) -> re.Pattern[str]:
    """``pattern`` read where a sentence begins, after its mentions and lead word (rules
    144-151)."""
    return re.compile(_SENTENCE_START + pattern, re.IGNORECASE)


def _named(said: str) -> str:
    """Whom praise names, without its verb: "gay people are" -> "gay people", "the trans
    community is" -> "the trans community"."""
    return re.sub(r"\s+(?:are|r|is)$", "", said, flags=re.IGNORECASE)


# Rule 143's rewrite: whom the praise names, stood with.
_STAND_WITH = _support(lambda m: "we stand with " + _named(m.group("g")))


# Rule 147's rewrite: the group defended, stood with, where the sentence stood.
def _defended(m: re.Match[str]) -> str:
    return _unaddressed(m) + "we stand with " + m.group("g")


# Rule 155's rewrite: a defence turned, read as the hate it turned into.
def _turned(m: re.Match[str]) -> str:
    if m.group("w"):
        return m.group("lead") + m.group("g") + " are " + m.group("w")
    return m.group("lead") + "all " + m.group("g") + " should die"


# Rule 151's rewrite: the group or member distrusted or shut out, hated.
def _hated(m: re.Match[str]) -> str:
    named = m.groupdict()
    return named["lead"] + "i hate " + (named.get("g") or named["m"])


# Rule 131: a threat said without a violent word ("i know where you live") is read only
# where it is a sentence of its own that ends the message: after the message's start, a
# sentence's end or a line break, any mentions and at most one lead word of a closed list;
# before nothing but punctuation, emoji and spaces (and, since rule 135, mentions). A
# sentence after it ("i know where you live, i'll drop your charger off later") leaves it
# to the model.
_LAST_LEADS = r"and|also|btw|fyi|remember|just\s+so\s+you\s+know|just\s+know|trust\s+me|honestly"
# Rule 150's veiled threats take three lead words more.
_VEILED_LEADS = _LAST_LEADS + r"|seriously|ok|okay"
_LAST_END = r"(?=(?:[^\w'\u2019@-]|@[\w.]*\w)*$)"
_YOU_BETTER = rf"(?:you(?:{_APOSTROPHE}d|\s+had)?\s+)?(?:better\s+)?"
_I_WILL = (
    rf"i(?:{_APOSTROPHE}ll|\s+will|{_APOSTROPHE}?m\s+(?:gonna|going\s+to)|"
    r"\s+am\s+(?:gonna|going\s+to))"
)
# Where an attack is planned: "shoot up the school", "bring a gun to class".
_ATTACKED = (
    r"(?:school|class|classroom|place|office|mall|church|mosque|synagogue|temple|party|"
    r"campus|building|store|concert)"
)
_WILL_DO = rf"(?:(?:i|we)\s+will|(?:i|we){_APOSTROPHE}ll|gonna|wanna|going\s+to)"
# A weapon brought there: who brings it ("i'm / we're bringing"), and to where (rules 131
# and 142 read "... to school" as an attack on everyone there).
_BRINGING = rf"(?:i|we)(?:{_APOSTROPHE}m|{_APOSTROPHE}re|\s+am|\s+are)\s+bringing"
_BROUGHT_TO = r"\s+to\s+(?P<where>school|class|work|campus)"


def _everyone_at(m: re.Match[str]) -> str:
    return "i am going to kill everyone at " + m.group("where")


def _threat(pattern: str, leads: str = _LAST_LEADS) -> re.Pattern[str]:
    """``pattern`` read where it is the message's last sentence, after one of ``leads``."""
    return re.compile(_led(leads) + "(?:" + pattern + ")" + _LAST_END, re.IGNORECASE)


def _meant(words: str) -> Callable[[re.Match[str]], str]:
    """A threat's rewrite: its mentions and lead word, then the threat it means."""
    return lambda m: m.group("lead") + words


_HOUSE = "i will come to your house and hurt you"
_AFTER_YOU = "i will come after you and hurt you"


# Rule 133: a will-form with "i" or "we", or one without a subject not after a negation
# ("i'm not gonna hurt you" is no threat); whom a threat's verb is aimed at.
_WE_WILL = (
    rf"(?:i|we)(?:{_APOSTROPHE}ll|\s+will|(?:{_APOSTROPHE}m|\s+am|{_APOSTROPHE}re|\s+are)"
    r"\s+(?:gonna|going\s+to))"
)
# "i'm", "i am", "we're", "we are" before "coming" or "sending" (rules 137, 139).
_WE_ARE = rf"(?:i{_APOSTROPHE}m|i\s+am|we{_APOSTROPHE}re|we\s+are)"
_THREAT_WILL = (
    rf"(?P<will>{_WE_WILL}|(?<!not\s)(?<!never\s)(?<!n{_APOSTROPHE}t\s)"
    r"(?:gonna|imma|going\s+to))"
)
_AIMED = rf"(?P<obj>you|ya|y{_APOSTROPHE}?all|him|her|them)"


def _punch(m: re.Match[str]) -> str:
    return m.group("will") + " punch " + m.group("obj")


# (words, pattern, rewrite): the pattern is tried only where one of the words is in the
# message, in small letters (most chat holds none of them). Longer idioms first.
_IDIOMS: tuple[tuple[tuple[str, ...], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (("hit",), _compile(r"hit\s+the\s+nail\s+on\s+the\s+head"), _fixed("got it exactly right")),
    (
        ("hit",),
        _compile(r"(?P<verb>hit|hits|hitting)\s+the\s+road"),
        lambda m: _LEAVE[m.group("verb").lower()],
    ),
    (
        ("hit",),
        _compile(r"(?P<verb>hit|hits|hitting)\s+the\s+(?:hay|sack)"),
        lambda m: _GO[m.group("verb").lower()] + " bed",
    ),
    (("hit",), _compile(rf"(?P<verb>hit|hits|hitting)(?=\s+the\s+{_GONE_TO}{_END})"), _verb(_GO)),
    (
        ("hit",),
        _compile(rf"(?P<verb>hit|hits|hitting)(?P<obj>\s+{_OBJ})\s+up(?!\s+with{_END})"),
        lambda m: _TEXT[m.group("verb").lower()] + m.group("obj"),
    ),
    (
        ("hit",),
        _compile(rf"(?P<verb>hit|hits|hitting)(?=\s+{_OBJ}\s+back\s+{_SOON}{_END})"),
        _verb(_TEXT),
    ),
    (
        ("hit",),
        _compile(
            rf"(?P<verb>hit|hits|hitting)(?P<obj>\s+{_OBJ})\s+with"
            rf"(?=\s+(?:{_DETERMINER}\s+)?(?:{_ADJECTIVE}\s+)?{_SENT}{_END})"
        ),
        lambda m: (
            {"hit": "give", "hits": "gives", "hitting": "giving"}[m.group("verb").lower()]
            + m.group("obj")
        ),
    ),
    (
        ("shoot", "shot"),
        _compile(
            rf"(?P<verb>shoot|shoots|shooting|shot)(?=\s+{_OBJ}\s+(?:over\s+)?"
            rf"(?:{_DETERMINER}\s+)?(?:{_ADJECTIVE}\s+)?{_SENT}{_END})"
        ),
        _verb(_SEND),
    ),
    (
        ("shot",),
        _compile(rf"(?P<verb>shoot|shoots|shooting|shot)(?P<whose>\s+{_POSS})\s+shot"),
        lambda m: _TAKE[m.group("verb").lower()] + m.group("whose") + " chance",
    ),
    (("leg",), _compile(r"break\s+a\s+leg(?!\s+of" + _END + ")"), _fixed("good luck")),
    (("dead",), _compile(r"knocked\s+(?:'em|\u2019em|em|them)\s+dead"), _fixed("did great")),
    (
        ("dead",),
        _compile(r"(?P<verb>knock|knocks|knocking)\s+(?:'em|\u2019em|em|them)\s+dead"),
        lambda m: _DO_GREAT[m.group("verb").lower()],
    ),
    (
        ("blow", "blew"),
        _compile(
            rf"(?P<verb>blow|blows|blew|blowing|blown)\s+up(?P<what>\s+{_POSS}\s+"
            r"(?:phone|inbox|dms|notifications|line|cell|mentions|texts))"
        ),
        lambda m: _TEXT_BLOWN[m.group("verb").lower()] + m.group("what"),
    ),
    (
        ("blow", "blew"),
        _compile(
            rf"(?P<verb>blow|blows|blew|blowing|blown)(?P<what>\s+{_POSS}\s+"
            r"(?:phone|inbox|dms|notifications|line|cell|mentions))\s+up"
        ),
        lambda m: _TEXT_BLOWN[m.group("verb").lower()] + m.group("what"),
    ),
    (("kill",), _compile(r"killing\s+it"), _fixed("doing great")),
    (("kill",), _compile(r"killed\s+it"), _fixed("did great")),
    (
        ("kill", "murder"),
        _compile(rf"(?P<who>you|we|y{_APOSTROPHE}?all)(?P<will>{_WILL})\s+(?:kill|murder)\s+it"),
        lambda m: m.group("who") + m.group("will") + " do great",
    ),
    (
        ("fire",),
        _compile(
            rf"(?P<who>{_BEING})\s+(?:(?:so|totally|really|absolutely|literally)\s+)?on\s+fire"
        ),
        lambda m: m.group("who") + " doing great",
    ),
    (
        ("crash",),
        _compile(
            rf"(?P<verb>crash|crashes|crashing|crashed)(?=\s+(?:at|on)\s+{_POSS}\s+{_PLACE}{_END})"
        ),
        _verb(_STAY),
    ),
    # Rule 126's idioms.
    (
        ("saver",),
        _compile(r"life[\s-]?saver(?P<many>s?)"),
        lambda m: "big help" + m.group("many"),
    ),
    (
        ("knock",),
        _compile(r"knock\s+(?:yourself|yourselves)\s+out"),
        _fixed("go ahead"),
    ),
    (
        ("bomb",),
        _compile(
            rf"(?P<who>{_BEING}|it{_APOSTROPHE}s|that{_APOSTROPHE}s|this\s+is|is|was)"
            rf"\s+(?:the|da)\s+bomb{_SHOWN}"
        ),
        lambda m: m.group("who") + " the best",
    ),
    (
        ("kill",),
        _compile(
            rf"(?P<may>would|could|(?:i|you|we|they|he|she){_APOSTROPHE}d)\s+kill\s+for"
            rf"(?=\s+(?:a|an|some|the|that|this|your|his|her|their|my|our){_END})"
        ),
        lambda m: m.group("may") + " give anything for",
    ),
    (
        ("destroy", "crush", "smash", "wreck", "beat", "murder", "kill"),
        _compile(rf"(?P<verb>{'|'.join(_WIN)})(?=\s+{_OBJ}\s+(?:at|in)\s+{_GAME}{_END})"),
        _verb(_WIN),
    ),
    (("murder",), _compile(r"murdering\s+it"), _fixed("doing great")),
    (("murder",), _compile(r"murdered\s+it"), _fixed("did great")),
    (
        ("kill",),
        _compile(r"(?P<go>go\s+)kill\s+it"),
        lambda m: m.group("go") + "do great",
    ),
    (
        ("kill",),
        _compile(r"kill\s+it(?=\s+(?:at|in|on|out\s+there|tonight|tomorrow|today)" + _END + ")"),
        _fixed("do great"),
    ),
    (("fire",), _compile(r"fire\s+away(?!\s+at" + _END + ")"), _fixed("go ahead")),
    # Rule 130's slogans of support (rule 129's entries, read only as the whole message).
    (
        ("lives",),
        _slogan(rf"(?P<g>{_LIVES})\s+lives\s+matter"),
        _support(lambda m: f"we stand with {m.group('g')} people"),
    ),
    (
        ("trans",),
        _slogan(
            r"trans\s+(?:(?P<w>women)\s+are\s+(?:real\s+)?women|(?P<m>men)\s+are\s+(?:real\s+)?men"
            r"|(?P<g>girls)\s+are\s+girls|(?P<b>boys)\s+are\s+boys)"
        ),
        _support(
            lambda m: (
                "we support trans " + (m.group("w") or m.group("m") or m.group("g") or m.group("b"))
            )
        ),
    ),
    (
        ("rights",),
        _slogan(rf"(?P<r>{_RIGHTS})\s+rights\s+are\s+human\s+rights"),
        _support(lambda m: f"we support {m.group('r')} rights"),
    ),
    (
        ("hate",),
        _slogan(r"stop\s+(?:anti-?\s?)?(?:asian|aapi)\s+hate"),
        _support(lambda m: "we stand with asian people"),
    ),
    (
        ("pride",),
        _slogan(rf"(?:happy\s+)?{_PRIDE}\s+pride(?P<when>\s+(?:month|day|week|parade|weekend))?"),
        _support(lambda m: "happy pride" + (m.group("when") or "")),
    ),
    # Rule 143's praise of a group, read as support where it is the whole message.
    (
        (
            "awesome",
            "amazing",
            "wonderful",
            "great",
            "beautiful",
            "gorgeous",
            "lovely",
            "valid",
            "kind",
            "strong",
            "brave",
            "talented",
            "incredible",
            "fantastic",
            "cool",
            "welcome",
            "loved",
            "best",
            "inspiring",
            "resilient",
            "precious",
            "valued",
            "wholesome",
        ),
        _slogan(
            rf"(?P<g>{_GROUP}\s+(?:are|r)|the\s+{_GROUP_ADJECTIVE}\s+community\s+is)\s+"
            rf"(?:(?:so|all|just|really|truly|absolutely|literally|simply)\s+)?(?:{_PRAISE})"
        ),
        _STAND_WITH,
    ),
    (
        ("deserve", "belong"),
        _slogan(rf"(?P<g>{_GROUP})\s+(?:deserves?\s+(?:{_DESERVED})|belongs?\s+here)"),
        _STAND_WITH,
    ),
    (
        ("protect",),
        _slogan(rf"protect\s+(?P<g>{_GROUP})"),
        _STAND_WITH,
    ),
    (
        ("proud", "happy", "queer"),
        _slogan(
            rf"(?:(?:proud|happy)\s+to\s+be\s+{_GROUP_ADJECTIVE}|{_GROUP_ADJECTIVE}\s+and\s+proud|"
            r"here\s+and\s+queer|queer\s+and\s+here)"
        ),
        _support(lambda m: "i am proud of who i am"),
    ),
    # Rule 144's death and harm wished on a group with "deserve", read in place as hate.
    (
        ("deserve", "belong"),
        _in_sentence(
            rf"(?:all\s+)?(?P<g>{_HATED})\s+"
            rf"(?:deserves?\s+(?:{_HARM})|belongs?\s+in\s+(?:{_CAGED})){_END}"
        ),
        lambda m: m.group("lead") + "all " + m.group("g") + " should die",
    ),
    # Rule 145's hate said as an opinion, read without its hedge.
    (
        _HATEFUL_WORDS,
        re.compile(
            rf"(?P<lead>{_SENTENCE_BEGINS}){_HEDGE}[,?]?\s+(?P<said>(?:all\s+)?{_HATED}\s+are\s+"
            rf"(?:(?:all|just|so|really)\s+)?(?:{_HATEFUL})){_SAID}",
            re.IGNORECASE,
        ),
        lambda m: m.group("lead") + m.group("said"),
    ),
    # Rule 146's humanity denied to a group, read in place as hate.
    (
        ("people", "human"),
        _in_sentence(rf"(?:all\s+)?(?P<g>{_HATED})\s+{_NOT_PEOPLE}{_SAID}"),
        lambda m: m.group("lead") + m.group("g") + " are subhuman",
    ),
    (
        ("lives",),
        _in_sentence(rf"(?P<a>{_GROUP_ADJECTIVE})\s+lives\s+{_DO_NOT}\s+matter{_SAID}"),
        lambda m: m.group("lead") + m.group("a") + " people are subhuman",
    ),
    # Rule 155's defence turned into hate in the next sentence, read as the hate (before
    # rule 147's reading of the defence alone).
    (
        ("deserve", "belong", "should", *_HATEFUL_MORE_WORDS),
        _in_sentence(rf"{_DEFENCE}(?:[.!]+|\u2026)\s+(?:(?:and|but)\s+)?(?:{_TURNED}){_STATED}"),
        _turned,
    ),
    # Rule 147's harm and hate denied to a group, read as its defence.
    (
        ("deserve", "belong"),
        _in_sentence(rf"(?:all\s+)?(?P<g>{_HATED})\s+{_NOT_DESERVED}{_STATED}"),
        _defended,
    ),
    (
        ("should",),
        _in_sentence(rf"(?:all\s+)?(?P<g>{_HATED})\s+{_NOT_SUFFER}{_STATED}"),
        _defended,
    ),
    (
        _HATEFUL_MORE_WORDS,
        _in_sentence(rf"(?:all\s+)?(?P<g>{_HATED})\s+{_NOT_HATEFUL}{_STATED}"),
        _defended,
    ),
    # Rule 148's hate quoted or reported to reject it, read with the hate put as "that",
    # where its sentence ends the message (rule 149) ...
    (
        _HATEFUL_MORE_WORDS,
        _in_sentence(
            r"(?:(?:saying|the\s+(?:idea|claim|myth|stereotype|notion|belief|lie)\s+that)\s+"
            rf"(?:{_QUOTED}|{_HATE_SAID})|{_QUOTED})\s+{_REJECTED}{_STATED_LAST}"
        ),
        lambda m: _unaddressed(m) + "that is a hateful lie",
    ),
    (
        _HATEFUL_MORE_WORDS,
        _in_sentence(
            r"people\s+who\s+(?P<v>say|think|believe|claim)\s+"
            rf"{_HATE_SAID}\s+(?P<j>{_JUDGED}){_STATED_LAST}"
        ),
        lambda m: _unaddressed(m) + "people who " + m.group("v") + " that " + m.group("j"),
    ),
    (
        _HATEFUL_MORE_WORDS,
        _in_sentence(rf"(?P<said>{_DISBELIEF})\s+(?:that\s+)?{_HATE_SAID}{_STATED_LAST}"),
        lambda m: _unaddressed(m) + m.group("said") + " that",
    ),
    # Rule 157's hate condemned, where its sentence ends the message.
    (
        _HATES_NAMED,
        _in_sentence(
            rf"(?P<ism>{'|'.join(_HATES_NAMED)})(?:\s+against\s+{_HATED})?\s+is\s+"
            rf"(?:{_CONDEMNED}){_STATED_LAST}"
        ),
        lambda m: _unaddressed(m) + "i stand against " + m.group("ism"),
    ),
    (
        _DETEST_WORDS,
        _in_sentence(rf"{_DETEST}(?:all\s+)?(?:{_BIGOTS}){_STATED_LAST}"),
        lambda m: _unaddressed(m) + "i stand against hate",
    ),
    (
        _DETEST_WORDS,
        _in_sentence(rf"{_DETEST}people\s+who\s+hate\s+(?P<g>{_HATED}){_STATED_LAST}"),
        _defended,
    ),
    # ... and being who one is defended.
    (
        ("being",),
        _in_sentence(
            rf"being\s+(?P<a>{_GROUP_ADJECTIVE})\s+(?:is\s+not|isn{_APOSTROPHE}?t)\s+{_NO_SIN}"
            rf"{_STATED_LAST}"
        ),
        lambda m: _unaddressed(m) + "we stand with " + m.group("a") + " people",
    ),
    # Rule 151's distrust and exclusion of a group, read as hate.
    (
        ("trust",),
        _in_sentence(
            rf"(?:(?:i|we)\s+(?:{_DO_NOT}|can{_APOSTROPHE}?t|cannot)\s+trust\s+(?P<g>{_HATED})|"
            rf"never\s+trust\s+(?P<m>{_MEMBER}|{_HATED})){_STATED}"
        ),
        _hated,
    ),
    (
        ("never",),
        _in_sentence(
            rf"i(?:{_APOSTROPHE}d|\s+would)\s+never\s+(?:hire|rent\s+to|vote\s+for|work\s+with|"
            rf"trust)\s+(?P<m>{_MEMBER}|{_HATED}){_STATED}"
        ),
        _hated,
    ),
    (
        ("want",),
        _in_sentence(
            rf"(?:i|we)\s+{_DO_NOT}\s+want\s+(?P<g>{_HATED})\s+(?:here|(?:in|near)\s+"
            rf"(?:my|our|this)\s+(?:{_KEPT_FROM})){_STATED}"
        ),
        _hated,
    ),
    (
        ("sick", "tired", "allowed"),
        _in_sentence(
            rf"(?:(?:i{_APOSTROPHE}m|i\s+am|we{_APOSTROPHE}re|we\s+are)\s+(?:(?:so|really)\s+)?"
            rf"(?:sick|tired)\s+of\s+(?P<g>{_HATED})|no\s+(?P<m>{_HATED})\s+allowed){_STATED}"
        ),
        _hated,
    ),
    (
        ("consider",),
        _in_sentence(
            rf"(?:i|we)\s+{_DO_NOT}\s+consider\s+(?P<g>{_HATED})\s+"
            rf"(?:human\s+beings|humans|human|people){_STATED}"
        ),
        _hated,
    ),
    # Rule 131's threats said without a violent word.
    (
        ("live", "sleep"),
        _threat(r"i\s+know\s+where\s+you\s+(?:live|sleep)"),
        _meant(_HOUSE),
    ),
    (
        ("address",),
        _threat(r"i\s+(?:know|have|got|found)\s+(?:your|ur)\s+(?:home\s+)?address(?:\s+now)?"),
        _meant(_HOUSE),
    ),
    (
        ("live",),
        _threat(rf"(?:{_I_WILL}|i\s+can)\s+find\s+(?:out\s+)?where\s+you\s+live"),
        _meant(_HOUSE),
    ),
    (
        ("eye",),
        _threat(_YOU_BETTER + r"sleep\s+with\s+one\s+eye\s+open(?:\s+tonight)?"),
        _meant("i will hurt you in your sleep"),
    ),
    (("watch",), _threat(_YOU_BETTER + r"watch\s+your\s+back"), _meant(_AFTER_YOU)),
    (
        ("regret", "pay"),
        _threat(rf"{_I_WILL}\s+make\s+you\s+(?:regret|pay\s+for)\s+(?:this|that|it)"),
        _meant(_AFTER_YOU),
    ),
    (
        ("live",),
        _threat(
            rf"you\s+(?:won{_APOSTROPHE}?t|will\s+not)\s+live\s+to\s+see\s+"
            r"(?:tomorrow|another\s+day|next\s+week|the\s+weekend)"
        ),
        _meant("i will kill you"),
    ),
    (("numbered",), _threat(r"your\s+days\s+are\s+numbered"), _meant("i will kill you")),
    # Rule 150's veiled threats said whole.
    (
        ("make",),
        _threat(
            rf"{_DO_NOT}\s+make\s+me\s+(?:(?:hurt|hit|punch|slap|smack|"
            r"beat|kill|stab|shoot|choke|strangle)\s+you|come\s+(?:over\s+there|"
            r"to\s+your\s+house|find\s+you))",
            _VEILED_LEADS,
        ),
        _meant("i will hurt you"),
    ),
    (
        ("days", "prayers", "breath", "moments"),
        _threat(
            r"(?:start\s+)?count(?:ing)?\s+your\s+days|"
            rf"{_YOU_BETTER}say\s+your\s+prayers|enjoy\s+your\s+last\s+(?:breaths?|days|moments)",
            _VEILED_LEADS,
        ),
        _meant("i will kill you"),
    ),
    (
        ("safe", "hide"),
        _threat(
            rf"(?:(?:you{_APOSTROPHE}?re|you\s+are|ur)\s+not|you\s+aren{_APOSTROPHE}?t)\s+safe"
            r"(?:\s+(?:anywhere|here|at\s+home)(?:\s+anymore)?|\s+anymore)?|"
            r"nowhere\s+is\s+safe\s+for\s+you(?:\s+(?:now|anymore))?|"
            rf"(?:there\s+is|there{_APOSTROPHE}?s)\s+nowhere\s+(?:for\s+you\s+)?to\s+hide|"
            r"you\s+have\s+nowhere\s+to\s+hide",
            _VEILED_LEADS,
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("shame",),
        _threat(
            rf"(?:(?:it|it{_APOSTROPHE}d|it\s+would|would|will)\s+)?be\s+(?:a\s+(?:real\s+)?|"
            r"such\s+a\s+)shame\s+if\s+something\s+(?:bad\s+)?(?:happened|were\s+to\s+happen)"
            r"\s+to\s+(?:you|your\s+[\w'\u2019-]+|that\s+(?:pretty\s+)?face)",
            _VEILED_LEADS,
        ),
        _meant("i will hurt you"),
    ),
    (
        ("feet", "daisies"),
        _threat(
            rf"(?:you{_APOSTROPHE}ll|you\s+will|(?:you{_APOSTROPHE}?re|you\s+are)\s+"
            r"(?:gonna|going\s+to))\s+be\s+(?:soon\s+)?(?:six\s+feet\s+under|"
            r"pushing\s+up\s+daisies)(?:\s+soon)?",
            _VEILED_LEADS,
        ),
        _meant("i will kill you"),
    ),
    # Rule 152's threats of reprisal said bare, by others' hands, and by what one would do
    # (rule 153: "you'll pay" only with "dearly", since a bare one is said of a bill too).
    (
        ("pay",),
        _threat(
            rf"you(?:{_APOSTROPHE}ll|\s+will|(?:{_APOSTROPHE}re|\s+are)\s+(?:gonna|going\s+to))"
            rf"\s+pay\s+dearly|(?:{_I_WILL}|imma)\s+make\s+you\s+pay(?:\s+dearly)?",
            _VEILED_LEADS,
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("deal", "handle", "friends", "people", "guys"),
        _threat(
            r"my\s+(?:brothers?|boys|guys|cousins?|friends|dad|uncles?|crew|gang|homies)"
            rf"(?:{_APOSTROPHE}ll|{_APOSTROPHE}s\s+gonna|\s+will|\s+(?:is|are)\s+(?:gonna|going\s+to))"
            r"\s+(?:deal\s+with|handle)\s+you|"
            r"i\s+(?:have|know|got)\s+(?:some\s+)?(?:friends|people|guys)\s+(?:who|that)\s+"
            r"(?:can|will|would)\s+(?:find|hurt|deal\s+with|handle)\s+you",
            _VEILED_LEADS,
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("handle",),
        _threat(
            rf"(?:imma|i{_APOSTROPHE}ll|i\s+will|i{_APOSTROPHE}?m\s+gonna)\s+(?:pull\s+up\s+and\s+)?"
            r"handle\s+you(?:\s+myself)?",
            _VEILED_LEADS,
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("want", "mess", "lesson"),
        _threat(
            rf"you\s+{_DO_NOT}\s+want\s+to\s+(?:find\s+out|know|see)\s+what\s+"
            rf"(?:{_I_WILL}|i{_APOSTROPHE}d|i\s+would)\s+do(?:\s+to\s+you)?|"
            rf"you\s+{_DO_NOT}\s+want\s+me\s+as\s+(?:an|your)\s+enemy|"
            rf"(?:i{_APOSTROPHE}?m|i\s+am)\s+not\s+someone\s+(?:you\s+want\s+as\s+an\s+enemy|"
            r"(?:you\s+want\s+)?to\s+mess\s+with)|"
            r"(?:someone|somebody)\s+(?:should|needs\s+to|has\s+to|oughta|ought\s+to|"
            r"is\s+(?:gonna|going\s+to))\s+teach\s+you\s+a\s+lesson",
            _VEILED_LEADS,
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("miss",),
        _threat(
            r"(?:nobody|no\s+one|noone)\s+(?:would|will)\s+(?:even\s+)?miss\s+you"
            r"(?:\s+if\s+you\s+(?:were\s+gone|died|disappeared|were\s+dead|killed\s+yourself))?"
        ),
        _meant("you should kill yourself"),
    ),
    (
        ("world",),
        _threat(
            r"the\s+world\s+(?:would|will)\s+be\s+(?:a\s+)?better(?:\s+place)?(?:\s+off)?"
            r"\s+without\s+you(?:\s+in\s+it)?"
        ),
        _meant("you should kill yourself"),
    ),
    (
        ("shoot",),
        _compile(
            rf"(?P<who>{_WILL_DO})\s+shoot\s+up(?P<what>\s+(?:the|this|that|my|our|your)"
            rf"\s+{_ATTACKED})"
        ),
        lambda m: m.group("who") + " shoot and kill everyone at" + m.group("what"),
    ),
    (
        ("gun", "rifle", "pistol"),
        _compile(
            rf"(?:{_BRINGING}|{_WILL_DO}\s+bring)\s+(?:a|my|his|her|the|(?:my\s+)?\w+{_APOSTROPHE}s)"
            rf"\s+(?:gun|rifle|pistol){_BROUGHT_TO}"
        ),
        _everyone_at,
    ),
    # Rule 133's direct threats whose verb the model reads as harmless.
    (
        ("beat",),
        _compile(
            rf"{_THREAT_WILL}\s+beat\s+{_AIMED}\s+up"
            r"(?!\s+(?:the|a|an|at|that|this|to)(?![\w'\u2019-]))"
        ),
        _punch,
    ),
    (
        ("beat",),
        _compile(
            rf"{_THREAT_WILL}\s+beat\s+{_AIMED}"
            r"(?=\s+(?:senseless|to\s+a\s+pulp|to\s+death|half\s+to\s+death|black\s+and\s+blue|"
            r"bloody)(?![\w'\u2019-]))"
        ),
        _punch,
    ),
    (
        ("hang",),
        _compile(
            rf"{_THREAT_WILL}\s+hang\s+{_AIMED}"
            r"(?!\s+(?:out|up|on|around|with|back|over|in|a|an|the|some)(?![\w'\u2019-]))"
        ),
        lambda m: m.group("will") + " kill " + m.group("obj"),
    ),
    (
        ("hurt",),
        _compile(
            rf"(?P<will>{_WE_WILL})\s+hurt\s+{_AIMED}"
            r"(?!\s+(?:feelings|chances|pride|ego|reputation|career|back|knee|foot|leg|arm)"
            r"(?![\w'\u2019-]))"
        ),
        _punch,
    ),
    # Rule 137's verbs of a beating the model reads as harmless ...
    (
        ("jump",),
        _compile(
            rf"{_THREAT_WILL}\s+jump\s+{_AIMED}"
            r"(?!\s+(?:start|to|in|into|on|ahead|over|off|through|the|a|an|with|for)"
            r"(?![\w'\u2019-]))"
        ),
        _punch,
    ),
    (("rough",), _compile(rf"{_THREAT_WILL}\s+rough\s+{_AIMED}\s+up"), _punch),
    # ... and its threats of pursuit and reprisal, read where they end the message.
    (
        ("find", "track"),
        _threat(rf"{_WE_WILL}\s+(?:find\s+you|track\s+you\s+down)"),
        _meant(_AFTER_YOU),
    ),
    (
        ("coming", "come"),
        _threat(
            rf"(?:{_WE_ARE}\s+coming|"
            rf"{_WE_WILL}\s+come)\s+for\s+you"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("happens",),
        _threat(
            r"(?:keep\s+talking|say\s+(?:that|it)\s+(?:again|one\s+more\s+time)|"
            r"call\s+me\s+that\s+again|"
            r"(?:touch|hit)\s+(?:me|her|him|them|my\s+\w+)\s+again)"
            r"\s+and\s+see\s+what\s+happens"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("pay",),
        _threat(
            rf"you(?:{_APOSTROPHE}ll|\s+will|(?:{_APOSTROPHE}re|\s+are)\s+(?:gonna|going\s+to))"
            r"\s+pay\s+for\s+(?:this|that)"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("get", "lesson"),
        _threat(
            rf"(?:meet\s+me\s+outside\s+and\s+)?{_I_WILL}\s+"
            r"(?:get\s+you\s+for\s+(?:this|that)|teach\s+you\s+a\s+lesson)"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("know",),
        _threat(
            r"(?:i|we)\s+know\s+where\s+(?:you|your\s+(?:kids|children|family|mom|mum|dad|"
            r"parents|wife|husband|sister|brother|son|daughter|girlfriend|boyfriend))\s+"
            r"(?:live|lives|work|works|sleep|sleeps|go\s+to\s+school|goes\s+to\s+school)"
        ),
        _meant(_HOUSE),
    ),
    # Rule 139's threats of being caught, and of what comes to those who cross one.
    (
        ("catch",),
        _threat(
            rf"(?:you(?:{_APOSTROPHE}d|\s+had)?\s+)?(?:better\s+not|don{_APOSTROPHE}?t|do\s+not)"
            r"\s+let\s+me\s+catch\s+you"
            r"(?:\s+(?:alone|outside|around\s+here|after\s+school|again))?"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("done", "dead", "finished"),
        _threat(
            r"if\s+i\s+(?:ever\s+)?(?:see|catch)\s+you"
            r"(?:\s+(?:again|outside|here|around\s+here|at\s+school(?:\s+tomorrow)?))?,?"
            rf"\s+you(?:{_APOSTROPHE}?re|\s+are)\s+(?:done|dead|finished)"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("messing", "dealing", "fucking", "wrong"),
        _threat(
            rf"you\s+{_DO_NOT}\s+know\s+who\s+you(?:{_APOSTROPHE}?re|\s+are)"
            r"\s+(?:messing|dealing|fucking)\s+with|"
            r"you\s+(?:messed|fucked)\s+with\s+the\s+wrong\s+"
            r"(?:person|guy|girl|one|dude|man|people|family)|"
            r"you\s+picked\s+the\s+wrong\s+(?:person|guy|girl|one|dude|man)\s+to\s+"
            r"(?:mess|fuck)\s+with"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("lights", "eye"),
        _threat(
            rf"i(?:{_APOSTROPHE}d|\s+would)\s+sleep\s+with\s+(?:the\s+lights\s+on|one\s+eye\s+open)"
            r"\s+if\s+i\s+(?:were|was)\s+you"
        ),
        _meant("i will hurt you in your sleep"),
    ),
    (
        ("watch",),
        _threat(
            rf"i(?:{_APOSTROPHE}d|\s+would)\s+watch\s+(?:my|your)\s+back\s+if\s+i\s+(?:were|was)\s+you"
        ),
        _meant(_AFTER_YOU),
    ),
    (
        ("send", "sending"),
        _threat(
            rf"(?:{_WE_WILL}\s+send|{_WE_ARE}\s+sending)"
            r"\s+(?:some\s+)?(?:guys|people|someone|somebody|my\s+boys|the\s+boys|my\s+guys)"
            r"\s+(?:to\s+your\s+(?:house|place|home)|after\s+you)(?:\s+tonight)?"
        ),
        _meant(_HOUSE),
    ),
    (
        ("make", "walk"),
        _threat(
            rf"you(?:\s+won{_APOSTROPHE}?t|\s+will\s+not|(?:{_APOSTROPHE}re|\s+are)\s+not\s+"
            r"(?:gonna|going\s+to))\s+(?:make\s+it\s+(?:home|out\s+alive|out\s+of\s+here\s+alive)|"
            r"walk\s+out\s+of\s+(?:there|here)(?:\s+alive)?)(?:\s+tonight)?"
        ),
        _meant("i will kill you"),
    ),
    # Rule 141's death wishes said softly, read where one ends the message ...
    (
        ("die",),
        _threat(
            rf"(?:(?:please|pls|plz|just|can\s+you|could\s+you|"
            rf"why\s+{_DO_NOT}\s+you)(?:\s+just)?\s+die(?:\s+already)?|"
            r"die\s+already)"
        ),
        _meant("go die"),
    ),
    (
        ("traffic", "pier"),
        _threat(r"go\s+play\s+in\s+traffic|take\s+a\s+long\s+walk\s+off\s+a\s+short\s+pier"),
        _meant("you should kill yourself"),
    ),
    (
        ("put",),
        _threat(
            r"(?:(?:someone|somebody)\s+(?:needs\s+to|should|ought\s+to)\s+put\s+you\s+down|"
            r"you\s+(?:need|deserve|ought)\s+to\s+be\s+put\s+down)(?:\s+like\s+a\s+dog)?"
        ),
        _meant("someone should kill you"),
    ),
    # ... and more verbs of a beating, read in place as rule 133's are.
    (
        ("lay",),
        _compile(
            rf"{_THREAT_WILL}\s+lay\s+{_AIMED}\s+out"
            r"(?!\s+(?:a|an|the|some|on|for|in|to)(?![\w'\u2019-]))"
        ),
        _punch,
    ),
    (("hands",), _compile(rf"{_THREAT_WILL}\s+put\s+hands\s+on\s+{_AIMED}"), _punch),
    (
        ("deck",),
        _compile(rf"{_THREAT_WILL}\s+deck\s+{_AIMED}(?!\s+(?:out|in)(?![\w'\u2019-]))"),
        _punch,
    ),
    (
        ("lacking", "slipping"),
        _compile(rf"{_THREAT_WILL}\s+catch\s+{_AIMED}\s+(?:lacking|slipping)"),
        _punch,
    ),
    # Rule 142's warnings of an attack on a school or workplace: a blade or a bomb brought
    # there, read anywhere as rule 131's gun is ...
    (
        ("knife", "knives", "machete", "blade", "weapon", "bomb", "explosives"),
        _compile(
            rf"(?:{_BRINGING}|(?:{_WILL_DO}|imma)\s+bring)\s+"
            rf"(?:(?:a|an|my|his|her|the|some|(?:my\s+)?\w+{_APOSTROPHE}s)\s+)?"
            rf"(?:knife|knives|machete|blade|weapons?|bomb|explosives){_BROUGHT_TO}"
        ),
        _everyone_at,
    ),
    # ... and, where one ends the message, a warning to stay away or that all will pay.
    (
        ("school",),
        _threat(
            rf"(?:{_DO_NOT}\s+come\s+to|stay\s+(?:home|away)\s+from)\s+school"
            r"\s+(?:tomorrow|next\s+week|(?:on\s+)?(?:monday|tuesday|wednesday|thursday|friday|"
            r"saturday|sunday))"
        ),
        _meant("i am going to kill everyone at school"),
    ),
    (
        ("pay",),
        _threat(
            r"everyone\s+at\s+(?:school|work|this\s+school|the\s+office)\s+"
            r"(?:will|is\s+going\s+to|is\s+gonna)\s+pay|"
            rf"(?:they|you)(?:\s+will|{_APOSTROPHE}ll|\s+are\s+gonna|{_APOSTROPHE}re\s+gonna|"
            rf"\s+are\s+going\s+to|{_APOSTROPHE}re\s+going\s+to)\s+all\s+pay|"
            rf"{_I_WILL}\s+make\s+(?:(?:them|you)\s+all|everyone)\s+pay"
        ),
        _meant("i am going to kill everyone"),
    ),
)
# Every word some idiom's pattern needs (each idiom names its own).
HINTS = frozenset(word for words, _, _ in _IDIOMS for word in words)
# Each hint's entries, by their place in the table (rule 138: a message's entries are looked
# up from the words found, not tested one by one).
_NAMED_BY: dict[str, tuple[int, ...]] = {
    hint: tuple(i for i, (words, _, _) in enumerate(_IDIOMS) if hint in words) for hint in HINTS
}


def _alternatives(words: frozenset[str]) -> str:
    """``words`` as one pattern of alternatives grouped by first letter, longer first."""
    by_letter: dict[str, list[str]] = {}
    for word in sorted(words, key=lambda w: (-len(w), w)):
        by_letter.setdefault(word[0], []).append(re.escape(word[1:]))
    return "|".join(
        letter + (rest[0] if len(rest) == 1 else "(?:" + "|".join(rest) + ")")
        for letter, rest in sorted(by_letter.items())
    )


# The gate: one search of the hints as alternatives, grouped by first letter (rule 127:
# 0.64 us a chat message, where nineteen substring tests took 0.99 and one ungrouped
# pattern 0.78). Every hint begins its idiom's pattern, follows a space in it, or follows
# letters no hint ends in ("life" before "saver"), so no hint an idiom needs lies inside
# another's match.
_HINT = re.compile(_alternatives(HINTS))


def read_idioms(text: str, low: str | None = None) -> str:
    """``text`` with each idiom of the table read as what it means; ``low``: ``text`` in
    lower case, where the caller has made it already."""
    if low is None:
        low = text.lower()
    found = _HINT.findall(low)
    if not found:
        return text
    named = {i for word in set(found) for i in _NAMED_BY[word]}
    for i in sorted(named):
        _, pattern, rewrite = _IDIOMS[i]
        text = pattern.sub(rewrite, text)
    return text


# Where a sentence ends: after ".", "!", "?" or "…" and a space, and at a line break.
_SENTENCE_END = re.compile(r"(?<=[.!?\u2026])\s+|\s*[\r\n]+\s*")


def without_idiom_sentences(text: str) -> str | None:
    """``text`` without the sentences an idiom of the table is read in, the others kept in
    order and joined by a space; None where every sentence or none holds one (rule 122)."""
    sentences = [s for s in _SENTENCE_END.split(text) if s.strip()]
    kept = [s for s in sentences if read_idioms(s) == s]
    if not kept or len(kept) == len(sentences):
        return None
    return " ".join(kept)


# No idiom of the table, with what its lookahead asks to follow it, is this long.
_LONGEST = 60


def reads_across(text: str, at: int) -> bool:
    """Whether an idiom of the table starts in the ``_LONGEST`` characters before ``at``:
    a prefix of ``text`` cut at ``at`` might read it otherwise than the whole message."""
    window = text[max(0, at - _LONGEST) : at + _LONGEST]
    low = window.lower()
    before = at - max(0, at - _LONGEST)
    return any(
        any(word in low for word in words)
        and any(m.start() < before for m in pattern.finditer(window))
        for words, pattern, _ in _IDIOMS
    )
