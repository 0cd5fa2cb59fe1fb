"""What a title says about a record: its comparison form (markup, database notes and
language tags removed; bilingual titles split), the numbers it uses to tell siblings apart,
the kind of notice it announces (erratum, retraction, reply), and whether it is generic."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from ..core.text import fold_plain, plain_text

# ---- titles

# Bibliographic databases append notes to titles; they say nothing about which paper it is.
_ORIGINAL_TITLE_MARK = re.compile(r"<\s*original\s*>", re.I)  # Embase: "English <ORIGINAL> original-language"
_RETRACTED_PREFIX = re.compile(r"^\s*(?:retracted(?:\s+article)?|withdrawn)\s*[:.\-]\s*", re.I)
# MEDLINE notes like "[Erratum appears in N Engl J Med. 2005;352:2146]", often cut off by export length limits.
_DATABASE_NOTE = re.compile(
    r"\[\s*(?:published\s+)?(?:erratum|errata|corrigendum|retraction|retracted|comment|comments|update|updated|"
    r"summary for patients|republished|reprint|expression of concern|see comments?|see also|corrected and republished)"
    r"\b[^\]]*(?:\]|$)",
    re.I,
)
_TRAILING_NOTE = re.compile(
    r"\s*\[\s*(?:\d+\s*refs?|abstract(?:\s*(?:no|number)\.?\s*:?\s*[\w.\-]+)?|poster[^\]]*|tp\s*\d+|[pe]\s*\d+|"
    r"isrctn\s*\d+|nct\s*\d+|epub ahead of print|electronic resource|corrected|"
    r"[^\]\d]{1,60})\s*\]\s*\.?\s*$",
    re.I,
)
_PAREN_NOTE = re.compile(
    r"\(\s*(?:author'?s'?\s+transl(?:ation)?\.?|(?:provisional|structured)\s+abstract|provisional record|"
    r"abstract|panel|demo|demonstration(?:\s+description)?|poster|invited talk|keynote(?:\s+address)?)\s*\)",
    re.I,
)
_CORRECTED_MARK = re.compile(r"\[\s*corrected\s*\]", re.I)
_LEADING_BRACKETS = re.compile(r"^\[([^\]]+)\]\.?\s*(?:to\s*:)?\s*(\S.{10,})$", re.I)
_BILINGUAL_SPLIT = re.compile(r"\s+=\s+|;\s+|\ue000")
_BILINGUAL_HINT = re.compile(r"\s=\s|;\s|^\[[^\]]+\]\.?\s*\S")


_ORIGINAL_BOUNDARY = "\ue000"  # private-use character: survives plain_text, never in real titles


def plain_title(value: str | None) -> str:
    """Title without markup; an <ORIGINAL> mark (Embase) becomes a boundary character."""
    text = value or ""
    if "<" in text or "&" in text or not text.isprintable():
        return plain_text(_ORIGINAL_TITLE_MARK.sub(_ORIGINAL_BOUNDARY, text)) or ""
    return " ".join(text.split())  # the common case, without plain_text's regex passes


def _clean_title(text: str) -> str:
    """Plain title without database notes and language tags."""
    # Each pattern only runs when its telltale character is present: most titles need none.
    text = _RETRACTED_PREFIX.sub("", text.strip("\"'“” "))
    if "(" in text:
        text = _PAREN_NOTE.sub("", _CITED_CORRECTION.sub("", text))
    if "[" in text:
        text = _CORRECTED_MARK.sub("", text)
        # Notes only when something precedes them: "[Erratum for …]" alone *is* the title.
        text = _DATABASE_NOTE.sub(lambda m: "" if m.start() > 0 else m.group(0), text)
        for _ in range(4):  # "Title. [Review] [24 refs]" carries several trailing notes
            stripped = _TRAILING_NOTE.sub("", text)
            if stripped == text or len(fold_plain(stripped).split()) < 3:
                break
            text = stripped
    return _DIGIT_GROUP.sub("", text.strip())


_DIGIT_GROUP = re.compile(r"(?<=\d)[ ,\u2009\u202f](?=\d{3}\b)")  # "10 000" / "10,000" -> "10000"


def title_variants(plain: str) -> list[str]:
    """Folded title, then each part of a bilingual title ("English; Original", "… <ORIGINAL> …")."""
    cleaned = _clean_title(plain)
    if not cleaned:
        return []
    main = fold_plain(cleaned.split(_ORIGINAL_BOUNDARY)[0])
    variants = [main] if main else []
    if _ORIGINAL_BOUNDARY not in cleaned and not _BILINGUAL_HINT.search(cleaned):
        return variants
    whole = fold_plain(cleaned.replace(_ORIGINAL_BOUNDARY, " "))
    if whole and whole not in variants:
        variants.append(whole)
    leading = _LEADING_BRACKETS.match(cleaned)  # "[English title] Original title" / "[…] TO: …"
    parts = _BILINGUAL_SPLIT.split(cleaned) + ([leading.group(1), leading.group(2)] if leading else [])
    for part in parts:
        folded = fold_plain(part)
        if len(folded.split()) >= 4 and folded not in variants:
            variants.append(folded)
    return variants


# A subtitle follows a colon, a spaced dash or a full stop: "Main title: subtitle".
_SUBTITLE = re.compile(r"\s*(?::|\s[-–—]\s|\.\s)\s*")


def main_title_of(plain: str) -> str:
    """The folded title before its subtitle, when it has one and the main part could identify
    a paper on its own (3+ words, 20+ characters, not generic); "" otherwise."""
    parts = _SUBTITLE.split(_clean_title(plain), maxsplit=1)
    if len(parts) < 2 or not fold_plain(parts[1]):
        return ""
    main = fold_plain(parts[0])
    return main if main.count(" ") >= 2 and len(main) >= 20 and not is_generic_title(main) else ""


# Function words that tell a title's language; a title with some of one list and none of the
# other is in that language. A title mostly in another script than Latin is told apart by that.
_ENGLISH_WORDS = frozenset("the of and in with for on to by from at is are an after versus or its their "
                           "between among during without".split())
_OTHER_WORDS = frozenset("de der die das und des dem den mit von zur zum bei fur für uber über eine einer "
                         "le la les et du des une pour avec sur dans chez aux au "
                         "el los las del y con para por en una sobre entre "
                         "il lo gli della delle nel nella con per di e "
                         "het een van voor op bij met "
                         "och av med för på "
                         "os as do da dos das em com para uma".split()) - _ENGLISH_WORDS


_TRANSLATED = re.compile(r"^\s*\[[^\[\]]{10,}\]\s*\.?\s*(?:\[[^\]]*\]\s*\.?\s*)*$")


def title_language(plain: str) -> str:
    """"en", "other" (another language), "script" (mostly non-Latin letters), "translated" (a
    title wholly in square brackets: MEDLINE's and Embase's mark of a translation from the
    original language) or "" when the title cannot tell."""
    if plain.startswith("[") and _TRANSLATED.match(plain):
        return "translated"
    letters = [ch for ch in plain if ch.isalpha()]
    if letters and sum(1 for ch in letters if not _is_latin(ch)) * 2 > len(letters):
        return "script"
    words = set(fold_plain(plain).split())
    english, other = bool(words & _ENGLISH_WORDS), bool(words & _OTHER_WORDS)
    if english and not other:
        return "en"
    if other and not english:
        return "other"
    return ""


def _is_latin(char: str) -> bool:
    return char.isascii() or "LATIN" in unicodedata.name(char, "")


DIGITS = re.compile(r"\d+")
_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5", "vi": "6", "vii": "7", "viii": "8", "ix": "9",
          "x": "10", "xi": "11", "xii": "12"}
_NUMBER_WORDS = {"one": "1", "two": "2", "three": "3", "four": "4", "five": "5", "six": "6", "seven": "7",
                 "eight": "8", "nine": "9", "ten": "10", "first": "1", "second": "2", "third": "3",
                 "fourth": "4", "fifth": "5", "sixth": "6", "seventh": "7", "eighth": "8", "ninth": "9", "tenth": "10"}
_MAY_HOLD_NUMBER = re.compile(r"\d|\b(?:%s)\b" % "|".join(sorted(set(_ROMAN) | set(_NUMBER_WORDS))))
# "I" is a pronoun or an initial unless it follows a word that numbers things.
_NUMBERING_WORDS = {"part", "phase", "stage", "type", "grade", "class", "study", "trial", "volume", "chapter",
                    "section", "series", "focus", "report", "paper", "experiment", "group", "level"}


def title_numbers(title: str) -> Iterator[str]:
    """Numbers a title uses to tell siblings apart: digits, roman numerals, number words."""
    if not _MAY_HOLD_NUMBER.search(title):
        return
    previous = ""
    for token in title.split():
        digits = DIGITS.findall(token)
        if digits:
            yield from (d.lstrip("0") or "0" for d in digits)
        elif token in _NUMBER_WORDS:
            yield _NUMBER_WORDS[token]
        elif token in _ROMAN and (len(token) > 1 and token not in {"vi", "xi"} or previous in _NUMBERING_WORDS):
            yield _ROMAN[token]
        previous = token


_NOTICE_PATTERNS = (
    ("erratum", re.compile(
        r"^(?:erratum|errata|corrigend(?:um|a)|addendum|(?:author|publisher)\s*(?:'s)?\s*correction|"
        r"publisher'?s note|correction(?:s)?(?=\s*(?::|to\b|for\b|of\s+(?:article|the\s+article|errors?)\b|$|notice))|"
        r"notice of correction)",
        re.I)),
    ("retraction", re.compile(
        r"^(?:retraction|notice of retraction|retraction notice|expression of concern|editorial expression of concern|"
        r"withdrawal(?=\s*(?::|of\b|notice|$)))",
        re.I)),
    ("reply", re.compile(
        r"^(?:reply|replies|in reply|authors?'?\s*(?:reply|response)|the authors?'?\s*(?:reply|response)|"
        r"response(?:s)?\s*(?:to|from)\s+(?:the\s+)?(?:letter|comment|commentary|editorial|correspondence|critique|"
        r"criticism|reviewer|authors?|dr\b|drs\b)|in response to|re\s*:|comments?\s+on\b|commentary\s+on\b|"
        r"letter to the editor|letter\s*:|comment\s*:|commentary\s*:|a reply to|rejoinder)",
        re.I)),
)


# Correction notices cite the corrected article after its title:
# Web of Science "Title (vol 360, pg 542, 2009)", Embase "Title (Journal (2009) 360 (542-544))".
_CITED_CORRECTION = re.compile(
    r"\(\s*vol\.?\s*\w+\s*,\s*pg\.?\s*\w+\s*,\s*(?:19|20)\d\d\s*\)\s*$|"
    r"\(\s*[A-Za-z][^()]*\(\s*(?:19|20)\d\d\s*\)\s*[\w.]+\s*(?:\([^()]*\)\s*)?\(\s*[\w\s\-\u2013]+\)\s*\)\s*$",
    re.I,
)


def notice_kind(plain_title: str) -> str | None:
    """The kind of notice a title announces (erratum, retraction, reply/comment), else None."""
    text = plain_title.lstrip("[(\"'“ ")
    if _RETRACTED_PREFIX.match(text):  # "RETRACTED: Title" is the article itself, marked
        return None
    if _CITED_CORRECTION.search(text):
        return "erratum"
    for kind, pattern in _NOTICE_PATTERNS:
        if pattern.match(text):
            return kind
    return None


_GENERIC_TITLE = re.compile(
    r"^(?:(?:guest |invited )?editorials?(?: comment| note)?|"
    r"editors? (?:s )?(?:note|notes|comments?|introduction|choice|corner|page|remarks|message|letter|view)|"
    r"(?:a )?(?:note|notes|remarks|message|letter|comments?|words?) from the (?:editors?|editor in chief|president|"
    r"chair|chairman|publisher)\b.*|from the (?:editors?|editor s desk|editor in chief|president|chair|publisher)\b.*|"
    r"introduction|introductory remarks|preface|foreword|prologue|epilogue|overview|summary|abstracts?|"
    r"(?:invited )?commentary|comments?|reply|replies|response|(?:the )?authors? (?:s )?reply|in reply|"
    r"letters?(?: to the editor)?|to the editor|correspondence|erratum|errata|corrigendum|corrections?|"
    r"retraction(?: notice)?|notice of retraction|expression of concern|in this issue|in brief|news(?: in brief)?|"
    r"book reviews?|(?:meeting |conference )?abstracts|posters?(?: session| sessions)?|oral presentations?|"
    r"(?:author |subject )?index|(?:table of )?contents|announcements?|obituary|in memoriam|acknowledg(?:e)?ments?|"
    r"(?:thank you to )?(?:our )?reviewers|highlights|discussion|conclusions?|untitled|no title|"
    r"title not available|not available|case reports?|images?|quiz|answers?|keynote(?: address)?|welcome|"
    r"opening remarks|closing remarks|special issue|mini ?track|"
    r"(?:introduction|preface|editorial) (?:to|for|of) (?:the )?(?:special|focus|mini ?track|minitrack|track|"
    r"symposium|section|issue|theme|virtual|thematic|supplement)\b.*|"
    r"(?:mini ?track|minitrack|track|symposium|special issue|special section) (?:introduction|overview)\b.*)$"
)


# Recurring features of a journal carry the same title in every issue, often by the same editor.
_RECURRING_FEATURE = re.compile(
    r"\b(?:column|corner|reminiscences|digest|spotlight|viewpoint|interview|puzzle|calendar|bulletin|newsletter|"
    r"news|notes|message|letter from|report from|highlights|roundup|round up|in brief|update on recent)\b"
)


def is_generic_title(title: str) -> bool:
    """Titles shared by many unrelated items, or too short to identify one."""
    words = title.count(" ") + 1
    if len(title) < 16 or words < 3:
        return True
    return bool(_GENERIC_TITLE.match(title)) or (words <= 6 and bool(_RECURRING_FEATURE.search(title)))


def in_other_languages(language_a: str, language_b: str) -> bool:
    """Two titles that are translations or transliterations of each other could be: one in a
    non-Latin script and the other not, one English and the other in another language, or one
    marked as translated (whose wording is the translator's)."""
    if "translated" in (language_a, language_b):
        return True
    if "script" in (language_a, language_b):
        return language_a != language_b
    return {language_a, language_b} == {"en", "other"}
