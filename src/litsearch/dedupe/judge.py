"""Judging one pair of profiles: same paper, different papers, or uncertain (kept apart and
reported), with a reason a person can read; and the vetoes that no evidence overrides."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

from rapidfuzz import fuzz

from ..core.text import plain_text
from .features import Profile, same_name_word
from .titles import fold_plain, in_other_languages, title_numbers


def authors_agree(a: Profile, b: Profile) -> bool | None:
    """True when the first authors share a name word or most surnames recur; None when unknown."""
    if not a.author_pool or not b.author_pool:
        return None
    if _first_authors_agree(a, b):
        return True
    shorter, other = (a, b) if len(a.surnames) <= len(b.surnames) else (b, a)
    if not shorter.surnames:
        return None
    found = sum(1 for surname in shorter.surnames if surname in other.author_pool)
    return found >= 1 and found * 2 >= len(shorter.surnames)  # half the shorter list, in any order


def _first_authors_agree(a: Profile, b: Profile) -> bool:
    if a.first_author & b.first_author:
        return True
    return any(same_name_word(x, y) for x in a.first_author for y in b.first_author)


def _first_author_label(a: Profile) -> str:
    return a.surnames[0].capitalize() if a.surnames else "?"


def journals_agree(a: Profile, b: Profile) -> bool | None:
    """True: same journal, allowing abbreviations ("J Clin Oncol", "Jthoraccardiovascsurg").

    False only when no word of one name even abbreviates a word of the other; None when
    unknown or unclear (journal names are too irregular to call a partial match different).
    """
    if not a.journal or not b.journal:
        return None
    if any(_abbreviates(x, y) or _abbreviates(y, x) for x in a.journal for y in b.journal):
        return True
    words_a = {w for variant in a.journal for w in variant}
    words_b = {w for variant in b.journal for w in variant}
    if any(_abbreviates((x,), (y,)) or _abbreviates((y,), (x,)) for x in words_a for y in words_b):
        return None
    if any(_is_acronym_of(w, variant) for w in words_a for variant in b.journal) or any(
        _is_acronym_of(w, variant) for w in words_b for variant in a.journal
    ):
        return None  # "vldb" / "very large data bases"
    return False


def _is_acronym_of(word: str, words: tuple[str, ...]) -> bool:
    """The word is the initials of consecutive words of the name."""
    if len(word) < 3 or len(word) > len(words):
        return False
    initials = "".join(w[0] for w in words)
    return word in initials


@lru_cache(maxsize=20_000)
def _abbreviates(short: tuple[str, ...], full: tuple[str, ...]) -> bool:
    """Whether each word of `short` abbreviates one or more consecutive words of `full`, covering all of them.

    A word abbreviates a word when it starts with the same letter and its letters
    appear in order ("dtsch" / "deutsche"); run-together abbreviations are pieces
    of consecutive words ("revargentcardiol" / "revista argentina cardiologia").
    """
    if short == full:
        return True

    @lru_cache(maxsize=None)
    def covers(i: int, j: int) -> bool:
        if i == len(short):
            return j == len(full)
        return any(covers(i + 1, k) for k in _spans(short[i], full, j))

    return covers(0, 0)


def _spans(word: str, full: tuple[str, ...], start: int) -> Iterator[int]:
    """End indices k such that `word` abbreviates full[start:k] as consecutive pieces."""

    def pieces(w: str, j: int) -> Iterator[int]:
        if j >= len(full):
            return
        target = full[j]
        if not w or w[0] != target[0]:
            return
        # Try every split: w[:cut] abbreviates target, the rest continues with the next word.
        for cut in range(len(w), 0, -1):
            if _is_subsequence(w[:cut], target):
                if cut == len(w):
                    yield j + 1
                else:
                    yield from pieces(w[cut:], j + 1)

    yield from pieces(word, start)


def _is_subsequence(small: str, big: str) -> bool:
    it = iter(big)
    return all(ch in it for ch in small)


def venue_agreement(a: Profile, b: Profile) -> str:
    """'match' (volume and pages agree, or the same multi-page range), 'conflict', or 'unknown'."""
    volume = _agreement(a.volume, b.volume)
    if volume is False and supplement_volume_mixup(a, b):
        volume = None  # one export wrote the supplement's number where the other wrote the volume
    pages = _pages_agree(a, b)
    if volume is False or pages is False:
        return "conflict"
    if volume and pages:
        return "match"
    if pages and a.first_page == b.first_page and a.last_page and a.last_page == b.last_page != a.first_page:
        return "match"
    return "unknown"


def _pages_agree(a: Profile, b: Profile) -> bool | None:
    if a.first_page is None or b.first_page is None:
        return None
    if a.article_number != b.article_number:
        return None  # an electronic article number (e12724) and printed pages cannot be compared
    if a.first_page == b.first_page:
        return True
    if a.last_page or b.last_page:
        # A typo or a dropped start page leaves the end page: "2297-2108"/"2097-2108", "488"/"487-488".
        return (a.last_page or a.first_page) == (b.last_page or b.first_page)
    return False


SUPPLEMENT_NUMBERS = 20  # a journal volume's supplements are numbered 1, 2, … ; never this many


def supplement_volume_mixup(a: Profile, b: Profile) -> bool:
    """Volumes that differ only because one export filed a supplement's number as the volume
    ("1" for Supplement 1 of volume 61, "61" in the other): a supplement record, one journal,
    one year, not on different pages, and the smaller "volume" small enough to be a supplement's
    number. A journal column recurs in different issues or on different pages and its copies are
    not in a supplement; one abstract shown at two congresses is in two journals: neither is
    excused."""
    if not (a.supplement or b.supplement) or a.volume is None or b.volume is None:
        return False
    return (a.year is not None and a.year == b.year and min(int(a.volume), int(b.volume)) <= SUPPLEMENT_NUMBERS
            and _pages_agree(a, b) is not False and not issues_conflict(a, b) and journals_agree(a, b) is True)


def pages_conflict(a: Profile, b: Profile) -> bool:
    """Both records give comparable pages and they are not the same pages."""
    return _pages_agree(a, b) is False


def _same_printed_item(a: Profile, b: Profile) -> bool:
    """Same volume, issue and first page: two records of one printed item, whatever their titles say."""
    return (a.volume is not None and a.volume == b.volume and a.first_page is not None
            and a.first_page == b.first_page and a.article_number == b.article_number
            and not issues_conflict(a, b))


def issues_conflict(a: Profile, b: Profile) -> bool:
    """Both records name their issue and the issues differ: journals that number pages per
    issue print different articles on the same pages of one volume."""
    return bool(a.issues and b.issues and not a.issues & b.issues)


def issue_typo(a: Profile, b: Profile) -> bool:
    """Different issue numbers on records that agree on everything else: a near-identical title
    (not a generic or recurring one), the year (or the next: epub and print), volume, the same
    multi-page range and first author. Two articles cannot share all of that; one record has
    its issue wrong."""
    return (not (a.weak_title or b.weak_title) and a.year is not None and b.year is not None
            and abs(a.year - b.year) <= 1 and a.volume is not None and a.volume == b.volume
            and a.first_page is not None and a.first_page == b.first_page and a.last_page is not None
            and a.last_page == b.last_page and a.last_page != a.first_page and _first_authors_agree(a, b)
            and title_similarity(a, b) >= NEAR_IDENTICAL)


def all_authors_agree(a: Profile, b: Profile) -> bool:
    """Both list authors and every surname of the shorter list is in the other (the lists
    differing by one name at most): more than a shared first author."""
    if not a.surnames or not b.surnames or abs(len(a.surnames) - len(b.surnames)) > 1:
        return False
    shorter, other = (a, b) if len(a.surnames) <= len(b.surnames) else (b, a)
    return _first_authors_agree(a, b) and all(surname in other.author_pool for surname in shorter.surnames)


def translated_twin(a: Profile, b: Profile) -> bool:
    """A title and its translation or transliteration on one printed article: the titles are
    in different languages or scripts, and the first author, year, volume, issue (when both
    give it) and the whole page range agree. Shared words or a shared author are not enough."""
    return (in_other_languages(a.language, b.language) and _first_authors_agree(a, b)
            and a.year is not None and a.year == b.year and _same_page_range(a, b, venue_agreement(a, b))
            and not issues_conflict(a, b))


def subtitle_twin(a: Profile, b: Profile) -> bool:
    """One record gives the title without its subtitle ("Main title" / "Main title: subtitle")."""
    return bool(a.main_title and a.main_title == b.title) or bool(b.main_title and b.main_title == a.title)




@lru_cache(maxsize=4_096)
def _folded_abstract(text: str) -> str:
    folded = fold_plain(plain_text(text) or "")
    return folded[:600] if len(folded) >= 200 else ""  # a snippet says too little either way


def _abstracts_agree(a: Profile, b: Profile) -> bool | None:
    """True: the same abstract (small edits); False: clearly different texts; None: unknown or in between."""
    if not a.abstract or not b.abstract:
        return None
    x, y = _folded_abstract(a.abstract), _folded_abstract(b.abstract)
    if not x or not y:
        return None
    shorter = min(len(x), len(y))
    if fuzz.ratio(x[:shorter], y[:shorter]) >= 90:
        return True
    # Word sets, not order: a structured abstract's headings or a reordered copy are not "different".
    if fuzz.token_set_ratio(x, y) < 50:
        return False
    return None


def _agreement(x: str | None, y: str | None) -> bool | None:
    return None if x is None or y is None else x == y


# --------------------------------------------------------------------------- pair judgement

NEAR_IDENTICAL = 95.0  # % title similarity that counts as the same title
SIMILAR = 88.0  # % similarity that needs bibliographic confirmation
UNCERTAIN_FLOOR = 85.0  # % similarity from which a refused pair is reported
CITED_TITLE_FLOOR = 60.0  # % similarity a title needs when year, volume, issue and pages agree


@dataclass
class _Verdict:
    merge: bool  # False: keep apart but report the pair as uncertain
    reason: str
    veto: str | None = None  # kept apart only by this veto (everything else says "same")


def identifier_conflict(a: Profile, b: Profile) -> str | None:
    """Two publisher DOIs, or two PMIDs, that differ: two papers, whatever else agrees."""
    if a.dois and b.dois and not a.dois & b.dois:
        return "different DOIs"
    if a.pmids and b.pmids and not a.pmids & b.pmids:
        return "different PMIDs"
    return None


def numbers_differ(a: Profile, b: Profile) -> bool:
    """Both titles number something and the numbers differ ("Part 1"/"Part 2", "phase II"/"phase I/II").

    A title cut short by an export loses the numbers of its tail, so the longer
    title only counts numbers within the length of the shorter one.
    """
    if not a.numbers or not b.numbers or a.numbers == b.numbers:
        return False
    short, long = sorted((a.title, b.title), key=len)
    short_numbers = a.numbers if short is a.title else b.numbers
    return set(title_numbers(long[: len(short) + 1])) != short_numbers


def hard_veto(a: Profile, b: Profile) -> str | None:
    """Why these two can never be one paper, whatever else agrees; None when nothing forbids it."""
    conflict = identifier_conflict(a, b)
    if conflict:
        return conflict
    if a.year and b.year and abs(a.year - b.year) > 1:
        return f"years {a.year}/{b.year}"
    if _same_printed_item(a, b):
        return None  # one volume and page: a typo in a title number, or an erratum indexed without its label
    if issues_conflict(a, b) and not issue_typo(a, b):
        return f"different issues ({'/'.join(sorted(a.issues))} vs {'/'.join(sorted(b.issues))})"
    if a.notice != b.notice:
        return "a notice (erratum/reply/retraction) and another item"
    if numbers_differ(a, b):
        return "titles carry different numbers"
    return None


def title_similarity(a: Profile, b: Profile) -> float:
    """Best similarity (0-100) over title variants: edit ratio or word-order-insensitive ratio."""
    best = 0.0
    for x in a.variants:
        for y in b.variants:
            score = max(fuzz.ratio(x, y, score_cutoff=best), fuzz.token_sort_ratio(x, y, score_cutoff=best))
            best = max(best, score)
    return best


def truncated_twin(a: Profile, b: Profile) -> bool:
    """One title is the other cut short (subtitle dropped, field length limit); needs 5+ words."""
    short, long = sorted((a.title, b.title), key=len)
    if len(short) == len(long) or short[:6] != long[:6] or short.count(" ") < 4:
        return False
    return fuzz.ratio(short, long[: len(short)]) >= 97 and long[len(short) : len(short) + 1] in ("", " ")


def judge(a: Profile, b: Profile, similarity: float) -> _Verdict | None:
    """Merge or not, with a human-readable reason; None when the pair is not worth reporting.

    `similarity` is `title_similarity(a, b)`, computed by the caller to order the pairs.
    """
    if not a.title or not b.title:
        return None  # a record without title only joins through an identifier
    # Most pairs that blocking proposes share little: leave early unless the titles or the citation may match.
    same_page = a.first_page is not None and a.first_page == b.first_page
    if similarity < UNCERTAIN_FLOOR and not same_page and not truncated_twin(a, b):
        return None
    veto = hard_veto(a, b)
    if veto:
        # Worth a look only when everything else says "same": the same title and authors, no
        # journal against it. A reviewer decides (print and online DOIs, a misnumbered issue).
        if (similarity >= NEAR_IDENTICAL and not (a.weak_title or b.weak_title) and authors_agree(a, b) is not False
                and journals_agree(a, b) is not False):
            return _Verdict(False, f"title {similarity:.0f}% similar but {veto}", veto=veto)
        return None

    authors = authors_agree(a, b)
    journals = journals_agree(a, b)
    venue = venue_agreement(a, b)
    same_year = a.year is not None and a.year == b.year
    near_year = a.year is None or b.year is None or abs(a.year - b.year) <= 1
    facts = lambda: _describe(a, b, similarity, authors, journals, venue)  # noqa: E731 - only when reported

    similar_title = similarity >= SIMILAR or truncated_twin(a, b)
    if subtitle_twin(a, b) and not (a.weak_title or b.weak_title):
        # "Title" against "Title: subtitle": the same authors, year and journal must vouch for it.
        if (authors and same_year and journals and venue != "conflict"
                and _abstracts_agree(a, b) is not False):
            return _Verdict(True, f"one title is the other without its subtitle; {facts()}")
    if similar_title:
        refusal = _refusal(a, b, similarity >= NEAR_IDENTICAL, authors, journals, venue, same_year, near_year)
        if refusal is None:
            return _Verdict(True, facts())
    else:
        refusal = f"titles only {similarity:.0f}% similar"

    if same_year and _same_page_range(a, b, venue):
        # Year, volume, issue and page range identify one article: whatever the authors say when
        # the title agrees (group author in one record, a misspelt name in the other), and with a
        # title in another language or script when the first author agrees (a translation).
        # The title must still be recognisably the same (a section prefix, a bracketed translation,
        # a reworded subtitle): titles that merely share a page range are two articles in journals
        # that number pages per issue, whoever wrote them.
        if (similarity >= NEAR_IDENTICAL or translated_twin(a, b)
                or (similarity >= CITED_TITLE_FLOOR and _first_authors_agree(a, b))):
            if journals is not False:
                return _Verdict(True, f"same year, volume and pages; {facts()}")
            return _Verdict(False, f"same citation but journals differ; {facts()}")

    worth_reporting = (similar_title or similarity >= UNCERTAIN_FLOOR) and authors is not False
    worth_reporting = worth_reporting and not ((a.weak_title or b.weak_title) and venue == "conflict")
    if not worth_reporting:
        return None
    return _Verdict(False, f"{refusal}; {facts()}")


def _same_page_range(a: Profile, b: Profile, venue: str) -> bool:
    """Same volume and the same multi-page range."""
    return (venue == "match" and a.volume is not None and a.first_page == b.first_page
            and a.last_page is not None and a.last_page == b.last_page and a.last_page != a.first_page)


def _refusal(a, b, strong_title, authors, journals, venue, same_year, near_year) -> str | None:
    """Why a pair with similar titles is not merged; None to merge."""
    if not near_year:
        return "years differ"
    if authors is False:
        return "authors differ"
    if venue == "conflict":
        return "volume or pages differ"
    abstracts = _abstracts_agree(a, b)
    if abstracts is False and venue != "match":
        return "abstracts differ (conference abstract and article?)"
    # A working paper or preprint keeps its abstract in the journal: a shared abstract
    # vouches for one record only within one venue.
    abstracts = abstracts and journals is not False
    if a.weak_title or b.weak_title:
        # "Editorial", "Introduction to the minitrack on …", or a column's title that recurs in
        # its journal: the title identifies nothing, the citation must.
        if same_year and venue == "match" and journals is not False and strong_title:
            return None
        return "generic title without matching journal, volume and pages"
    if not strong_title:
        # Similar but not identical titles need the bibliographic details or the abstract to agree.
        if authors and (venue == "match" or abstracts):
            return None
        return "titles similar but not identical, volume/pages not confirming"
    if venue == "match" or abstracts:
        return None
    if authors is None:
        return "same title but authors unknown"
    if same_year:
        if journals is not False:
            return None
        if in_other_languages(a.journal_language, b.journal_language) and all_authors_agree(a, b):
            return None  # one journal named in its own language, the other in English
        return "same title and year but different journals (conference abstract and article?)"
    if (a.year is None or b.year is None) and journals:
        return None
    # A year apart: epub and print years differ, but so do an abstract and its article.
    # Same journal and volume says it is one publication.
    if journals and a.volume is not None and a.volume == b.volume:
        return None
    # Proceedings are indexed under the year of the meeting or of the volume: the same
    # conference, title and authors a year apart are one paper.
    if journals and a.conference and b.conference and all_authors_agree(a, b):
        return None
    return "same title, years one apart, volume and pages not confirming"


def _describe(a: Profile, b: Profile, similarity, authors, journals, venue) -> str:
    parts = [f"title {similarity:.0f}% similar"]
    if a.year or b.year:
        parts.append(f"year {a.year}" if a.year == b.year else f"year {a.year}/{b.year}")
    if authors:
        parts.append(f"first author {_first_author_label(a)}")
    elif authors is False:
        parts.append(f"first authors {_first_author_label(a)}/{_first_author_label(b)}")
    if venue == "match":
        parts.append(f"volume {a.volume or '?'} page {a.first_page}")
    elif venue == "conflict":
        parts.append(f"volume/page {a.volume}:{a.first_page} vs {b.volume}:{b.first_page}")
    if journals is False:
        parts.append("journals differ")
    return ", ".join(parts)
