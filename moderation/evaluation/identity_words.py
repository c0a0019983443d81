"""Whether a text names an identity group: for measuring, never for deciding.

`moderation eval` reads ordinary chat that names a group apart from the rest of it
(``benign_chat_groups`` in moderation/evaluation/run.py): nudging people for naming who
they are, or whom they live beside, is a failure the whole pool's rate hides, since
such chat is a few in a hundred utterances. The words are the common names of groups
by race and ethnicity, religion, sexuality and gender identity, gender, disability,
nationality and migration. A colour or "trans" counts only before a word for people
("black people", "trans women"), so "black and white" and "trans fats" are no group.
Nothing that scores or decides a message reads this list.
"""

from __future__ import annotations

import re

_PEOPLE = (
    r"(?:people|person|persons|folks?|man|men|woman|women|kids?|guys?|girls?|boys?|"
    r"community|communities|families|family|americans?)"
)
_GROUP = re.compile(
    r"\b(?:"
    # Sexuality and gender identity.
    r"gays?|lesbians?|bisexuals?|queers?|transgender|nonbinary|non-binary|lgbtq?\+?|"
    r"trans\s+" + _PEOPLE + r"|"
    # Race and ethnicity: a colour only before a word for people.
    r"(?:black|white|brown)\s+" + _PEOPLE + r"|blacks|whites|"
    r"asians?|latinos?|latinas?|latinx|hispanics?|mexicans?|africans?|arabs?|"
    r"chinese|japanese|koreans?|indians?|pakistanis?|native\s+americans?|indigenous|roma|"
    # Religion.
    r"muslims?|islam|islamic|jews?|jewish|christians?|catholics?|hindus?|sikhs?|"
    r"buddhists?|atheists?|mormons?|"
    # Migration.
    r"immigrants?|refugees?|migrants?|foreigners?|asylum\s+seekers?|"
    # Disability.
    r"disabled|autistic|deaf|wheelchair\s+users?|"
    # Gender.
    r"women|woman|feminists?"
    r")\b",
    re.IGNORECASE,
)


def names_a_group(text: str) -> bool:
    """Whether ``text`` names an identity group by one of the list's words."""
    return _GROUP.search(text) is not None
