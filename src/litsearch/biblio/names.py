"""Authors' names split into family and given parts (or kept whole for groups), and the
stable citation keys made from them (``vaswani2017attention``)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from ..core.records import Paper
from ..core.text import plain_text


def plain_line(value: str | None) -> str:
    """Plain single-line text of a title, abstract or name (provider markup removed)."""
    if not value:
        return ""
    if "<" in value or "&" in value or not value.isprintable():
        return plain_text(value) or ""
    return " ".join(value.split())  # the common case, without plain_text's regex passes



# --------------------------------------------------------------------------- names


@dataclass(frozen=True)
class PersonName:
    """One author: a person (family, given, suffix) or a group (literal)."""

    family: str | None = None
    given: str | None = None
    suffix: str | None = None
    literal: str | None = None


_GROUP_WORDS = re.compile(
    r"\b(?:group|consortium|collaborat\w*|committee|organi[sz]ation|society|association|institute|network|team|"
    r"investigators|council|agency|foundation|initiative|working party|panel|trialists|alliance|cent(?:er|re)|"
    r"university|department|project|task force|registry|programme|ministry|commission)\b",
    re.I,
)
_PARTICLES = {"van", "von", "de", "der", "den", "del", "della", "da", "di", "du", "dos", "das", "des", "le", "la",
              "ten", "ter", "van't", "bin", "ibn", "al", "el", "st.", "zu", "y"}
_SUFFIXES = {"jr", "jr.", "sr", "sr.", "ii", "iii", "iv"}
DIGIT = re.compile(r"\d")
_CONJUNCTION = re.compile(r"\band\b|&", re.I)  # "Barnes and Noble": never one person
_INITIALS = re.compile(r"^(?:[A-Z]{1,3}|(?:[A-Z]\.){1,3})$")


@lru_cache(maxsize=65_536)  # exports repeat author names: each is analysed once
def split_name(name: str) -> PersonName | None:
    """Family and given names of an author string, or a literal group name; None when empty."""
    text = plain_line(name)
    if len(text) > 2 and text[0] == "{" and text[-1] == "}":
        return PersonName(literal=text[1:-1].strip())  # BibTeX's way of saying "one name, do not split"
    if not text:
        return None
    if _GROUP_WORDS.search(text) or _CONJUNCTION.search(text) or DIGIT.search(text):
        return PersonName(literal=text)
    if "," in text:
        return _split_comma_name(text)
    words = text.split(" ")
    suffix = None
    if len(words) > 2 and words[-1].lower() in _SUFFIXES:
        suffix, words = words[-1], words[:-1]
    if len(words) == 1:
        return PersonName(family=words[0], suffix=suffix)
    if len(words) > 4:
        return PersonName(literal=text)  # too long for a person: an unrecognised group name
    if _INITIALS.match(words[-1]):  # PubMed: "Hsu PD", "van der Berg J"
        return PersonName(family=" ".join(words[:-1]), given=_dotted_initials(words[-1]), suffix=suffix)
    start = next((i for i, word in enumerate(words[1:-1], start=1) if word.lower() in _PARTICLES), len(words) - 1)
    return PersonName(family=" ".join(words[start:]), given=" ".join(words[:start]), suffix=suffix)


def _split_comma_name(text: str) -> PersonName:
    """BibTeX order: "Family, Given" or "Family, Jr, Given"."""
    parts = [part.strip() for part in text.split(",")]
    if len(parts) >= 3 and parts[1].lower() in _SUFFIXES:
        return PersonName(family=parts[0], given=", ".join(parts[2:]) or None, suffix=parts[1])
    family, given = parts[0], ", ".join(part for part in parts[1:] if part)
    if not family:
        return PersonName(literal=text)
    return PersonName(family=family, given=given or None)


def _dotted_initials(initials: str) -> str:
    """"PD" -> "P. D."; already dotted initials stay."""
    letters = initials.replace(".", "")
    return " ".join(f"{letter}." for letter in letters)


# --------------------------------------------------------------------------- citation keys

_TO_ASCII = str.maketrans({"ß": "ss", "ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l",
                           "Ł": "L", "đ": "d", "Đ": "D", "ð": "d", "þ": "th", "ı": "i"})
_NOT_KEY_CHAR = re.compile(r"[^a-z0-9]")
_STOP_WORDS = set(
    "a an the on of in for and to with from by at is are as via into using about toward towards its their "
    "do does can what how why when which who whether or not no".split())


def ascii_fold(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Müller-Lüdenscheidt" -> "mullerludenscheidt"."""
    if not text.isascii():
        text = unicodedata.normalize("NFKD", text.translate(_TO_ASCII)).encode("ascii", "ignore").decode()
    return _NOT_KEY_CHAR.sub("", text.lower())


def _key_surname(paper: Paper) -> str:
    name = split_name(paper.authors[0]) if paper.authors else None
    if name is None:
        return "anon"
    if name.literal:
        words = (ascii_fold(word) for word in name.literal.split())
        return next((word for word in words if word and word not in _STOP_WORDS), "anon")
    return ascii_fold(name.family or "") or "anon"


_TITLE_WORD_BREAK = re.compile(r"[\s\-–—/:]+")


def _key_title_word(title: str) -> str:
    words = (ascii_fold(word) for word in _TITLE_WORD_BREAK.split(plain_text(title) or ""))
    return next((word for word in words if word and not word.isdigit() and word not in _STOP_WORDS), "")


def base_citation_key(paper: Paper) -> str:
    year = str(paper.year) if paper.year else "nd"
    return f"{_key_surname(paper)}{year}{_key_title_word(paper.title)}"


def citation_keys(papers: Sequence[Paper]) -> list[str]:
    """One unique key per paper, in order; the second use of a key gets "a", then "b", …"""
    used: set[str] = set()
    keys = []
    for paper in papers:
        base = key = base_citation_key(paper)
        number = 0
        while key in used:
            key = base + _letters(number)
            number += 1
        used.add(key)
        keys.append(key)
    return keys


def _letters(number: int) -> str:
    """0 -> "a", 25 -> "z", 26 -> "aa": suffixes that never run out."""
    suffix = ""
    number += 1
    while number:
        number, remainder = divmod(number - 1, 26)
        suffix = chr(ord("a") + remainder) + suffix
    return suffix


def keys_for(papers: Sequence[Paper], keys: Sequence[str] | None) -> list[str]:
    if keys is None:
        return citation_keys(papers)
    if len(keys) != len(papers):
        raise ValueError(f"{len(keys)} keys given for {len(papers)} papers")
    return list(keys)
