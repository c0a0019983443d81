"""Chat's idioms of violent words, slogans of support, threats said without a violent word,
threats whose verb the model reads as harmless, threats of pursuit and reprisal, threats of
being caught, death wishes said softly, warnings of an attack, praise of a group, and hate
said of a group in words the model reads as harmless, read as what they mean
(moderation/idioms.py, rules 121, 126, 130, 131, 133, 135, 137, 139, 141-151)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from moderation.idioms import HINTS, read_idioms, reads_across
from moderation.normalize import Normalizer

VOCAB = frozenset({"hit", "you", "up", "later", "shoot", "text", "kill", "fire"})


@pytest.mark.parametrize(
    ("idiom", "meant"),
    [
        ("i'll hit you up later", "i'll text you later"),
        ("Hit me up when you're free", "text me when you're free"),
        ("she hits him up every day", "she texts him every day"),
        ("i'll hit you back in a bit", "i'll text you back in a bit"),
        ("hit y'all back tomorrow", "text y'all back tomorrow"),
        ("i'll hit you with the details", "i'll give you the details"),
        ("hitting you with a quick question", "giving you a quick question"),
        ("i'll shoot you a text", "i'll send you a text"),
        ("shot her an email", "sent her an email"),
        ("shooting you my number", "sending you my number"),
        ("shoot us over a quick pic", "send us over a quick pic"),
        ("break a leg tonight!", "good luck tonight!"),
        ("go knock em dead", "go do great"),
        ("you knocked 'em dead", "you did great"),
        ("shoot your shot with her", "take your chance with her"),
        ("i'll blow up your phone later", "i'll text your phone later"),
        ("she blew my phone up", "she texted my phone"),
        ("you're killing it!", "you're doing great!"),
        ("you killed it last night", "you did great last night"),
        ("you're gonna kill it tomorrow", "you're gonna do great tomorrow"),
        ("we'll kill it", "we'll do great"),
        ("you're on fire today", "you're doing great today"),
        ("she's so on fire", "she's doing great"),
        ("can i crash at your place", "can i stay at your place"),
        ("you hit the nail on the head", "you got it exactly right"),
        ("time to hit the road", "time to leave"),
        ("time to hit the hay", "time to go to bed"),
        ("let's hit the beach", "let's go to the beach"),
        # Typographer's apostrophes are read as the plain ones.
        ("you\u2019re on fire", "you\u2019re doing great"),
        # Rule 126's.
        ("you're a lifesaver", "you're a big help"),
        ("you guys are life-savers", "you guys are big helps"),
        ("knock yourself out, the fridge is yours", "go ahead, the fridge is yours"),
        ("you're the bomb!", "you're the best!"),
        ("this pizza is da bomb", "this pizza is the best"),
        ("i'd kill for your hair", "i'd give anything for your hair"),
        ("i could kill for a coffee", "i could give anything for a coffee"),
        ("you murdered it on stage", "you did great on stage"),
        ("she's murdering it", "she's doing great"),
        ("you're gonna murder it", "you're gonna do great"),
        ("go kill it at the interview", "go do great at the interview"),
        ("kill it tomorrow!", "do great tomorrow!"),
        ("fire away, ask anything", "go ahead, ask anything"),
        ("i'm gonna destroy you at chess", "i'm gonna win against you at chess"),
        ("she crushed me in a game of scrabble", "she won against me in a game of scrabble"),
        ("beating y'all at mario kart", "winning against y'all at mario kart"),
        # Rule 130's slogans of support, each the whole message.
        ("black lives matter", "we stand with black people"),
        ("Black Lives Matter!!", "we stand with Black people!!"),
        ("yes, black lives matter", "yes, we stand with black people"),
        (
            "@sam @jo reminder that black lives matter",
            "reminder that we stand with black people",
        ),
        (
            "indigenous lives matter too \U0001f49b",
            "we stand with indigenous people too \U0001f49b",
        ),
        ("trans women are women", "we support trans women"),
        ("trans men are real men.", "we support trans men."),
        ("gay rights are human rights", "we support gay rights"),
        ("Women\u2019s rights are human rights!", "we support Women\u2019s rights!"),
        ("lgbtq+ rights are human rights", "we support lgbtq+ rights"),
        ("stop anti-asian hate", "we stand with asian people"),
        ("happy gay pride month \U0001f308", "happy pride month \U0001f308"),
        # Rule 131's threats, each a sentence of its own that ends the message.
        ("I know where you live.", "i will come to your house and hurt you."),
        ("@jake i know where you live", "@jake i will come to your house and hurt you"),
        (
            "keep talking. i know where you sleep",
            "keep talking. i will come to your house and hurt you",
        ),
        (
            "btw i have your home address now \U0001f642",
            "btw i will come to your house and hurt you \U0001f642",
        ),
        (
            "trust me i can find out where you live",
            "trust me i will come to your house and hurt you",
        ),
        ("you'd better sleep with one eye open tonight", "i will hurt you in your sleep"),
        ("you better watch your back!!", "i will come after you and hurt you!!"),
        ("I'm gonna make you regret that", "i will come after you and hurt you"),
        ("i will make you pay for this", "i will come after you and hurt you"),
        ("you wont live to see another day", "i will kill you"),
        ("your days are numbered", "i will kill you"),
        ("honestly nobody would even miss you if you died", "honestly you should kill yourself"),
        ("the world would be a better place without you in it", "you should kill yourself"),
        # Rule 135: mentions may close the message too.
        ("i know where you live @sam", "i will come to your house and hurt you @sam"),
        ("your days are numbered!! @jess_92 @max.b", "i will kill you!! @jess_92 @max.b"),
        (
            "gonna shoot up the school tomorrow",
            "gonna shoot and kill everyone at the school tomorrow",
        ),
        ("we'll shoot up this mall", "we'll shoot and kill everyone at this mall"),
        (
            "i'm bringing my dad's gun to school tomorrow",
            "i am going to kill everyone at school tomorrow",
        ),
        ("gonna bring a rifle to class", "i am going to kill everyone at class"),
        # Rule 133's verbs the model reads as harmless, read as one it knows.
        ("i'll beat you up", "i'll punch you"),
        ("I will beat you up after school.", "I will punch you after school."),
        ("imma beat y'all up", "imma punch y'all"),
        ("we're gonna beat him up so bad", "we're gonna punch him so bad"),
        ("i'll beat you to a pulp", "i'll punch you to a pulp"),
        ("i am going to beat her half to death", "i am going to punch her half to death"),
        ("i'll hang you", "i'll kill you"),
        ("we'll hang them all", "we'll kill them all"),
        ("i'll hurt you", "i'll punch you"),
        ("i\u2019m going to hurt you badly", "i\u2019m going to punch you badly"),
        # Rule 137: "jump" and "rough up", and threats of pursuit and reprisal.
        ("we'll jump you after practice", "we'll punch you after practice"),
        ("imma jump him", "imma punch him"),
        ("i'm gonna rough her up if she talks", "i'm gonna punch her if she talks"),
        ("i will find you.", "i will come after you and hurt you."),
        ("btw we'll track you down", "btw i will come after you and hurt you"),
        ("i'm coming for you @sam", "i will come after you and hurt you @sam"),
        ("keep talking and see what happens", "i will come after you and hurt you"),
        ("call me that again and see what happens!", "i will come after you and hurt you!"),
        ("touch my sister again and see what happens", "i will come after you and hurt you"),
        ("you're gonna pay for this", "i will come after you and hurt you"),
        ("i'll get you for that", "i will come after you and hurt you"),
        ("meet me outside and i'll teach you a lesson", "i will come after you and hurt you"),
        ("we know where your kids go to school", "i will come to your house and hurt you"),
        ("lol. i know where you work", "lol. i will come to your house and hurt you"),
        # Rule 139: threats of being caught, and of reprisal by others' hands.
        ("don\u2019t let me catch you alone!", "i will come after you and hurt you!"),
        ("you'd better not let me catch you", "i will come after you and hurt you"),
        ("if i ever see you again, youre dead", "i will come after you and hurt you"),
        ("you messed with the wrong family @sam", "i will come after you and hurt you @sam"),
        ("you dont know who you are dealing with", "i will come after you and hurt you"),
        ("i'd sleep with one eye open if i were you", "i will hurt you in your sleep"),
        ("i would watch your back if i was you", "i will come after you and hurt you"),
        ("we're sending the boys after you tonight", "i will come to your house and hurt you"),
        ("you won't make it out of here alive", "i will kill you"),
        ("you are not going to walk out of there alive", "i will kill you"),
        # Rule 141: death wishes said softly, "put you down", more verbs of a beating.
        ("please die.", "go die."),
        ("ok. why don\u2019t you just die already", "ok. go die"),
        ("go play in traffic @sam", "you should kill yourself @sam"),
        ("someone needs to put you down like a dog", "someone should kill you"),
        ("you deserve to be put down!", "someone should kill you!"),
        ("i'll lay you out", "i'll punch you"),
        ("we're gonna put hands on him after school", "we're gonna punch him after school"),
        ("imma deck you", "imma punch you"),
        ("i'm gonna catch you lacking", "i'm gonna punch you"),
        # Rule 142: warnings of an attack on a school or workplace.
        (
            "we're bringing knives to school tomorrow",
            "i am going to kill everyone at school tomorrow",
        ),
        ("i will bring a weapon to work", "i am going to kill everyone at work"),
        ("btw don't come to school tomorrow", "btw i am going to kill everyone at school"),
        ("stay away from school on friday!!", "i am going to kill everyone at school!!"),
        ("everyone at this school is going to pay", "i am going to kill everyone"),
        ("i'm going to make them all pay @sam", "i am going to kill everyone @sam"),
        # Rule 143: praise of a group said whole, read as support.
        ("gay people are awesome", "we stand with gay people"),
        ("Lesbians are valid!", "we stand with Lesbians!"),
        ("yes trans men are so valid too", "yes we stand with trans men too"),
        (
            "@sam the trans community is amazing \u2764\ufe0f",
            "we stand with the trans community \u2764\ufe0f",
        ),
        ("immigrants r welcome here", "we stand with immigrants"),
        ("trans people deserve respect", "we stand with trans people"),
        ("refugees deserve a safe home.", "we stand with refugees."),
        ("gay couples belong here", "we stand with gay couples"),
        ("protect trans kids!!", "we stand with trans kids!!"),
        ("proud to be gay", "i am proud of who i am"),
        ("queer and here \U0001f308", "i am proud of who i am \U0001f308"),
        # Rule 144: death and harm wished on a group with "deserve", read as hate.
        ("muslims deserve to die", "all muslims should die"),
        ("@sam tbh trans people deserve to be killed!!", "@sam tbh all trans people should die!!"),
        ("ok. all jews deserve the gas chamber lol", "ok. all jews should die lol"),
        ("black ppl deserve slavery", "all black ppl should die"),
        ("refugees belong in camps", "all refugees should die"),
        # Rule 145: hate said as an opinion, read without its hedge.
        ("i think muslims are terrorists", "muslims are terrorists"),
        ("@sam personally i think jews are greedy lol", "@sam jews are greedy lol"),
        ("ok. honestly? trans people are sick!!", "ok. trans people are sick!!"),
        ("i'm not racist but black people are lazy", "black people are lazy"),
        # Rule 146: a group's humanity denied, read as hate.
        ("black people are not people", "black people are subhuman"),
        ("@sam tbh jews aren't even human lol", "@sam tbh jews are subhuman lol"),
        ("muslim lives don't matter!!", "muslim people are subhuman!!"),
        # Rule 147: harm and hate denied to a group, read as its defence.
        ("trans people don't deserve to die", "we stand with trans people"),
        ("@sam tbh refugees do not belong in cages!", "tbh we stand with refugees!"),
        ("black people shouldn't be shot by police 💔", "we stand with black people 💔"),
        ("ok. mexicans aren't rapists.", "ok. we stand with mexicans."),
        # Rule 148: hate quoted or reported to reject it, and being who one is defended.
        ('"muslims are violent" is a dangerous lie!', "that is a hateful lie!"),
        ("lol saying jews are greedy is antisemitic", "lol that is a hateful lie"),
        (
            "people who say women are inferior are the problem.",
            "people who say that are the problem.",
        ),
        (
            "@sam i can't believe he said gay people are sick 😡",
            "i can't believe he said that 😡",
        ),
        ("being trans isn't a mental illness.", "we stand with trans people."),
        # Rule 150: veiled threats said whole.
        ("seriously, don't make me slap you!!", "seriously, i will hurt you!!"),
        ("ok. count your days", "ok. i will kill you"),
        ("@kev you're not safe anywhere anymore 🔪", "@kev i will come after you and hurt you 🔪"),
        ("would be a shame if something happened to your sister", "i will hurt you"),
        ("you'll be six feet under soon @kev", "i will kill you @kev"),
        # Rule 151: distrust and exclusion of a group, read as hate.
        ("i dont trust muslims.", "i hate muslims."),
        ("@sam i'd never hire a black person", "@sam i hate a black person"),
        ("tbh we don't want refugees in our town!", "tbh i hate refugees!"),
        ("no mexicans allowed 🚫", "i hate mexicans 🚫"),
        ("i don't consider immigrants human", "i hate immigrants"),
        # Rules 152 and 153: reprisal said bare, by others' hands, by what one would do.
        ("you'll pay dearly", "i will come after you and hurt you"),
        ("ok, imma make you pay!!", "ok, i will come after you and hurt you!!"),
        ("@jake my boys are gonna handle you", "@jake i will come after you and hurt you"),
        ("i got some friends that would deal with you.", "i will come after you and hurt you."),
        ("i'll pull up and handle you myself", "i will come after you and hurt you"),
        ("you dont want to know what i'd do to you", "i will come after you and hurt you"),
        ("i'm not someone to mess with 😤", "i will come after you and hurt you 😤"),
        ("somebody oughta teach you a lesson", "i will come after you and hurt you"),
        # Rule 155: a defence turned into hate in the next sentence, read as the hate.
        ("jews don't deserve hate. they deserve to die.", "all jews should die."),
        (
            "@sam refugees don't belong in cages... they belong in graves",
            "@sam all refugees should die",
        ),
        ("honestly, migrants are not invaders. they are filth!", "honestly, migrants are filth!"),
        ("women shouldn't be beaten. but they should be killed", "all women should die"),
        # ... and one whose next sentence goes on in support is rule 147's defence.
        (
            "jews don't deserve hate. they deserve respect.",
            "we stand with jews. they deserve respect.",
        ),
        ("women are not stupid. they are brilliant.", "we stand with women. they are brilliant."),
        (
            "trans people are not mentally ill. they are sick of being told so.",
            "we stand with trans people. they are sick of being told so.",
        ),
        # Rule 154: support and defences read without the mentions their sentence opens
        # with; hate and threats keep theirs.
        ("ok. @kim @jo jews are not greedy.", "ok. we stand with jews."),
        ("@bea 'muslims are violent' is a lie", "that is a hateful lie"),
        ("@jo refugees belong in cages!", "@jo all refugees should die!"),
        ("@jo i dont trust muslims", "@jo i hate muslims"),
        ("@fay jews don't deserve hate. they deserve to die.", "@fay all jews should die."),
        # Rule 157: hate condemned, where its sentence ends the message.
        ("@sam homophobia is pathetic", "i stand against homophobia"),
        ("hate against muslims is unacceptable.", "i stand against hate."),
        ("honestly, transphobia is so gross", "honestly, i stand against transphobia"),
        ("i can't stand racists!", "i stand against hate!"),
        ("i hate people who hate trans people", "we stand with trans people"),
    ],
)
def test_each_idiom_is_read_as_what_it_means(idiom: str, meant: str) -> None:
    assert read_idioms(idiom) == meant


@pytest.mark.parametrize(
    "threat",
    [
        "i'll hit you with a bat",
        "i'll hit you up with a bat",
        "hit me again and i'll hit you back",
        "i'll hit you back when you least expect it",
        "i'll shoot you in the face",
        "someone should shoot you",
        "shoot him a few times",
        "i'll break your legs",
        "break a leg of yours and see",
        "i'll knock you dead",
        "i'll set you on fire",
        "set them on fire",
        "i'll blow up your car",
        "i'll blow up your house",
        "i'm going to kill you",
        "i'll kill it and then you",
        "i'll crash my car into your house",
        "i'll hit your head",
        "i'd kill for you",
        "i'll beat you at school",
        "i'll destroy you at the park",
        "i'm gonna destroy you",
        "i'll knock you out",
        "i'll bomb your house",
        "you're the bomb squad's next job",
        "the bomb is in your car",
        "fire away at them",
        "i'll murder you",
        "kill it and then kill you",
        # Inside a word, a handle or a hashtag: no idiom.
        "@hitmeup",
        "#killingit",
        "whitethe road",
    ],
)
def test_a_threat_that_shares_the_verbs_is_left_as_written(threat: str) -> None:
    assert read_idioms(threat) == threat


@pytest.mark.parametrize(
    "text",
    [
        # Beside other words a slogan is the model's to read (rule 129's failure: the
        # rewrite took away whom "they" names).
        "black lives matter? they're animals",
        "black lives matter. kill yourself",
        "black lives matter is a terrorist group",
        "marching today because black lives matter",
        "stop asian hate. jk, send them all back",
        "gay pride is disgusting",
        "trans women are not women",
        # A slogan of white supremacy, and the suite's frames, are no entry's.
        "white lives matter",
        "Rights for gay people are human rights.",
        "gay people matter.",
        "trans people are people.",
        # Rule 143: praise denied, undone by words after it, or beside other words; hate
        # in praise's frames; a group's name after "protect" that is not whom it protects.
        "gay people are not valid",
        "lesbians aren't valid",
        "gay people are awesome... said no one ever",
        "trans women are valid targets",
        "gay people are awesome at spreading lies",
        "lesbians are valid lol jk",
        "refugees deserve nothing",
        "women belong in the workforce",
        "protect kids from trans people",
        "protect our women from immigrants",
        "proud to be straight, gays are gross",
        "gay and proud? more like gay and gross",
        "i think lesbians are cool",
        "white people are awesome",
        # Rule 144: a negation, a quotation or any other word before the group; harm not
        # of its list; no group named.
        "no muslim deserves to die",
        "trans people don't deserve to die, they deserve worse",
        "i don't think gay people deserve to die",
        "saying jews deserve to be exterminated is pure evil",
        "anyone who says muslims deserve to die is a bigot",
        "asians deserve to be deported",
        "refugees belong in our communities",
        "this boss deserves to die",
        "they all deserve to die",
        "muslims deserve to dies",
        # Rule 145: a hedge denied, praise, hate said of no group, or words after it.
        "i don't think muslims are terrorists",
        "i think muslims are terrorized by these attacks",
        "i think people who say asians are dirty are racist",
        "i think muslims are kind",
        "i think those people are animals",
        "i think muslims are terrorists and should leave",
        # Rule 146: a denial that is not of humanity, quoted, or with words after it.
        "black people are not a monolith",
        "corporations are not people",
        "muslims are not people you should fear",
        "they said immigrant lives don't matter and that's disgusting",
        "asian lives don't matter to this government and that has to change",
        # Rule 147: a denial not of harm, or one a comma, a dash or "?" carries on.
        "muslims don't deserve to live",
        "refugees do not belong here",
        "muslims shouldn't be allowed to vote",
        "trans women are not women",
        "jews don't deserve to die, they deserve worse",
        "jews don't deserve to die — they deserve worse",
        "muslims are not terrorists? lol they are",
        "black people shouldn't be shot by anyone but me",
        # Rule 148: the quote affirmed, a kind statement rejected, or a rejection carried on.
        '"muslims are violent" is a fact',
        "the idea that mexicans are hard workers is a lie",
        "people who say muslims are terrorists are right",
        "i can't believe he said black people are human",
        "being gay is a sin",
        "being trans is not a mental illness, it's a perversion",
        "being muslim is not a crime but it should be",
        # Rule 149: a rejection with a sentence after it.
        '"muslims are violent" is a lie. they are worse than violent.',
        "being gay is not a sin. it is a disease.",
        # Rule 150: the same words said of other things, or with words after them.
        "don't make me laugh",
        "seriously, don't make me hurt you at chess again",
        "count your blessings",
        "you are not safe from my puns lol",
        "be a shame if something happened to the last slice lol",
        "you'll be six feet tall by next year",
        # Rule 151: the same frames of no group, or with words after them.
        "i don't trust politicians",
        "i'd never hire a clown again",
        "i'm tired of trans people being attacked",
        "i don't want refugees to suffer",
        "i don't trust muslims, never have",
        "my grandpa says he doesn't trust muslims and it breaks my heart",
        # Rules 152 and 153: the same words said of other things, or with words after them.
        "i paid last time. you'll pay.",
        "you'll pay at the door",
        "i'll make you pay for the pizza next time lol",
        "my brother will deal with the car tomorrow",
        "my brother will deal with you after school tomorrow",
        "i know people who can help you with your resume",
        "you don't want to find out what i'll do with all this leftover cake lol",
        "somebody needs to teach you a lesson in fashion",
        # Rule 155: a defence that turns after a comma is the model's.
        "jews don't deserve hate, they deserve to die.",
        # Rule 157: hate praised, other words after, a group hated or its defenders.
        "racism is good",
        "anti-racism is a cancer",
        "racism is wrong? no, blacks really are inferior",
        "i hate racists so much, they make me sick",
        "i hate people who defend immigrants",
        "i hate antiracists",
    ],
)
def test_a_slogan_beside_other_words_is_left_as_written(text: str) -> None:
    assert read_idioms(text) == text


@pytest.mark.parametrize(
    "text",
    [
        # A sentence after the phrase is the model's to read (rule 131).
        "i know where you live, i'll drop your charger off later",
        "i know where you live! just past the bakery, right?",
        "i have your address now, the package goes out tomorrow",
        "i'll find out where you live from mom and send a card",
        "watch your back when you lift boxes, bend your knees",
        "i'll watch your back in the game, you go for the flag",
        "nobody would miss the meeting if we cancelled it",
        "no one would miss you if you skipped the party? rude, i would",
        "i know where you live @sam, i'll drop your charger off later",
        "i know where you live @",
        # Not a sentence of its own: a word before it that no lead list holds.
        "we're neighbours so i know where you live",
        "my days at this job are numbered",
        "the world would be better off without mosquitoes",
        "you'll regret not coming",
        # No attack planned: no will, or no place of the list.
        "prices shot up again this month",
        "someone shot up the mall yesterday",
        "my brother shot up three inches over the summer",
        "i'm bringing my dad's camera to school tomorrow",
        "it's illegal to bring a gun to school",
        # Rule 137: the same phrases with a sentence after them, or another sense.
        "i will find you a good seat",
        "i'll find you at the party",
        "i'm coming for you at 6, be ready",
        "hold on, i'm coming for you",
        "let's wait and see what happens",
        "try turning it off and on and see what happens",
        "you will pay for the tickets, right?",
        "i'll get you a coffee for this",
        "i'll teach you how to drive",
        "i know where you work, i'll stop by for lunch",
        "we know where your kids go to school, it's the one by the park",
        # Rule 139.
        "don't let me catch you slacking on leg day lol",
        "if i see you again at the store i'll say hi",
        "you messed with the wrong settings",
        "i'd sleep with the lights on if i were you, that movie is scary",
        "i'd watch my diet if i were you",
        "i'm sending my boys to your house for the sleepover",
        "i'll send some flowers to your house",
        "you won't make it home before the rain",
        "so you won't make it home tonight?",
        # Rule 141.
        "please don't die on me, we need you for the raid",
        "pls die laughing at this meme",
        "my phone just died already",
        "can you dye my hair already",
        "someone needs to put you down for the raffle",
        "you need to be put down on the list",
        "the kids play in traffic cones at the fair",
        # Rule 142.
        "i'm bringing a knife to cut the cake at school tomorrow",
        "i'm bringing a bath bomb to the party",
        "don't come to school tomorrow, it's a snow day",
        "stay home from school tomorrow if you feel worse",
        "they'll all pay their share",
        "i'm going to make them all pancakes",
    ],
)
def test_a_phrase_of_a_threat_beside_other_words_is_left_as_written(text: str) -> None:
    assert read_idioms(text) == text


@pytest.mark.parametrize(
    "text",
    [
        # Rule 133: negated, aimed at oneself, or another sense of the verb.
        "don't beat yourself up about it",
        "i'm not gonna beat you up",
        "i would never hurt you",
        "i'm not gonna hurt you, promise",
        "i'll never hurt you",
        "it'll hurt you more than me to miss it",
        "i'll hurt her feelings if i say no",
        "i'll beat you up the hill on my bike",
        "i'll beat you to it",
        "he beat me up at chess lol",
        "i'll hang out with you tomorrow",
        "i'll hang you a picture in the hall",
        "we'll hang them on the wall",
        "i'll hang up and call you back",
        "whisk the eggs, then beat them until fluffy",
        "the team got beat up in the second half",
        "i'll lay you out a towel",
        "we'll lay out the tables",
        "i'm gonna put hands on deck",
        "i'll deck the halls",
        "imma deck him out in christmas gear",
        "i'll catch you later",
        "i'm not gonna lay you out",
        # Rule 137.
        "we'll jump you to the front of the line",
        "i'll jump you start your car in the morning",
        "we're gonna jump in the pool tomorrow",
        "i'm not gonna jump you",
        "we'll rough out the plan tomorrow",
        "i'm gonna rough it this weekend",
    ],
)
def test_a_verb_not_aimed_as_a_threat_is_left_as_written(text: str) -> None:
    assert read_idioms(text) == text


def test_text_without_a_hint_is_returned_as_is() -> None:
    text = "see you at the game tonight"
    assert not any(hint in text for hint in HINTS)
    assert read_idioms(text) is text


@given(st.text(alphabet="hit you up shoot a text break leg killing on fire.,'!", max_size=60))
def test_reading_twice_changes_nothing_more(text: str) -> None:
    once = read_idioms(text)
    assert read_idioms(once) == once


def test_a_cut_inside_an_idiom_or_its_condition_is_reported() -> None:
    text = "well " * 20 + "i'll hit you back later and more words"
    verb = text.index("hit")
    assert reads_across(text, text.index(" you", verb))
    # The condition ("later") lies past the verb's rewrite: a cut before it too.
    assert reads_across(text, text.index(" later"))
    assert not reads_across(text, 4)
    assert not reads_across("well " * 40, 100)


def test_the_normalizer_reads_idioms_only_when_asked_and_after_shorthand() -> None:
    assert Normalizer(VOCAB)("ill hit u up l8r") == "ill hit you up l8r"
    on = Normalizer(VOCAB, idioms=True)
    assert on.idioms
    assert on("ill hit u up later") == "ill text you later"
    assert on("i'll hit u with a bat") == "i'll hit you with a bat"


def test_the_normalizer_cuts_no_prefix_inside_an_idiom() -> None:
    text = "well " * 20 + "i'll shoot you a text soon"
    space = text.index(" you")
    assert Normalizer(VOCAB, idioms=True).joins_across(text, space)
    assert not Normalizer(VOCAB).joins_across(text, space)


@pytest.mark.parametrize(
    ("text", "rest"),
    [
        ("i'll shoot you a text tomorrow. I hope you die", "I hope you die"),
        ("you suck! break a leg tonight", "you suck!"),
        ("a. hit me up later? b\nc", "a. b c"),
        ("ok\u2026 hit you back in a bit", "ok\u2026"),
        # Every sentence, or none, holds an idiom: no rest.
        ("i'll hit you up later. break a leg", None),
        ("i'll hit you with a bat. loser", None),
        ("i'll hit you up later", None),
    ],
)
def test_the_rest_is_the_sentences_no_idiom_is_read_in(text: str, rest: str | None) -> None:
    from moderation.idioms import without_idiom_sentences

    assert without_idiom_sentences(text) == rest


def test_the_normalizer_gives_a_rest_only_where_it_reads_an_idiom() -> None:
    on = Normalizer(VOCAB, idioms=True)
    assert on.with_rest("i'll shoot u a text. u suck") == (
        "i'll send you a text. you suck",
        "you suck",
    )
    assert on.with_rest("u suck. so do i") == ("you suck. so do i", None)
    assert Normalizer(VOCAB).with_rest("i'll shoot u a text. u suck") == (
        "i'll shoot you a text. you suck",
        None,
    )


def test_the_gate_asks_for_every_word_an_idiom_needs_and_no_other() -> None:
    from moderation.idioms import _HINT

    assert all(_HINT.fullmatch(word) for word in HINTS)
    assert not _HINT.search("see you at the game tonight, bring the blue ball")


@given(
    st.lists(
        st.sampled_from(
            [
                "hit",
                "HIT",
                "you",
                "up",
                "back",
                "later",
                "shoot",
                "shot",
                "me",
                "a",
                "text",
                "break",
                "leg",
                "knock",
                "em",
                "dead",
                "blow",
                "blew",
                "my",
                "phone",
                "killing",
                "it",
                "you're",
                "on",
                "fire",
                "crash",
                "at",
                "your",
                "place",
                "the",
                "road",
                "life",
                "saver",
                "yourself",
                "out",
                "bomb",
                "kill",
                "for",
                "murdered",
                "go",
                "away",
                "destroy",
                "beat",
                "chess",
                "i'd",
                "black",
                "lives",
                "matter",
                "trans",
                "women",
                "are",
                "rights",
                "human",
                "stop",
                "asian",
                "hate",
                "gay",
                "pride",
                "happy",
                "yes",
                "too",
                "i",
                "know",
                "where",
                "live",
                "sleep",
                "address",
                "have",
                "one",
                "eye",
                "open",
                "better",
                "watch",
                "make",
                "regret",
                "pay",
                "this",
                "days",
                "numbered",
                "nobody",
                "would",
                "miss",
                "world",
                "without",
                "gonna",
                "school",
                "bring",
                "gun",
                "btw",
                "beat",
                "hang",
                "hurt",
                "him",
                "them",
                "senseless",
                "imma",
                "i'll",
                "not",
                "jump",
                "rough",
                "find",
                "track",
                "down",
                "coming",
                "come",
                "keep",
                "talking",
                "and",
                "see",
                "what",
                "happens",
                "you'll",
                "get",
                "teach",
                "lesson",
                "we",
                "work",
                "kids",
                "don't",
                "let",
                "catch",
                "if",
                "see",
                "again",
                "you're",
                "done",
                "messed",
                "wrong",
                "person",
                "i'd",
                "lights",
                "were",
                "send",
                "guys",
                "won't",
                "make",
                "it",
                "home",
                "please",
                "die",
                "already",
                "play",
                "traffic",
                "put",
                "down",
                "lay",
                "hands",
                "deck",
                "lacking",
                "knife",
                "bringing",
                "to",
                "come",
                "stay",
                "tomorrow",
                "everyone",
                "all",
                "gay",
                "people",
                "women",
                "are",
                "valid",
                "awesome",
                "so",
                "deserve",
                "respect",
                "belong",
                "protect",
                "proud",
                "happy",
                "be",
                "and",
                "queer",
                "here",
                "community",
                "is",
                "not",
                "muslims",
                "no",
                "to",
                "die",
                "belong",
                "in",
                "camps",
                "i",
                "think",
                "honestly",
                "terrorists",
                "lol",
                "human",
                "lives",
                "matter",
                "don't",
                "deserve",
                "die",
                "shouldn't",
                "be",
                "killed",
                "not",
                "are",
                "being",
                "gay",
                "sin",
                "saying",
                "is",
                "lie",
                "racism",
                "evil",
                "hate",
                "racists",
                "immigrants",
                "pay",
                "make",
                "deal",
                "handle",
                "with",
                "friends",
                "who",
                "can",
                "teach",
                "lesson",
                "want",
                "enemy",
                "@sam",
                ".",
                "!",
            ]
        ),
        max_size=12,
    )
)
def test_the_gate_skips_only_patterns_that_could_not_match(words: list[str]) -> None:
    from moderation.idioms import _IDIOMS

    text = " ".join(words)
    ungated = text
    for _, pattern, rewrite in _IDIOMS:
        ungated = pattern.sub(rewrite, ungated)
    assert read_idioms(text) == ungated
    assert read_idioms(text, text.lower()) == ungated
