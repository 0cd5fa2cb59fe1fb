"""Search filters: parsed once, translated by each provider into its own parameters, and
enforced on the merged list for whatever a provider could not apply itself.

A merged paper passes a filter when its data satisfies it: the merged record's, or any
one provider's record of it (APIs disagree, e.g. on a preprint's year). Where no record
has the data at all (no date, no venue), the paper passes only if a provider that
applied the filter itself returned it: the user asked for papers known to match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from datetime import date

from .preprints import is_preprint, only_preprints
from .records import Paper
from .text import fold_title

PAPER_TYPES = ("article", "review", "preprint", "conference")
# The OpenAlex entity filters (an id, or a name resolved to one before the providers run),
# and the place filters: only OpenAlex knows a work's institutions, topics, publisher and
# funders, so a paper another provider found passes them only when OpenAlex found it too.
ENTITY_FILTERS = ("source", "institution", "topic", "publisher", "funder")
OPENALEX_ONLY_FILTERS = frozenset({"institution", "topic", "publisher", "funder", "country", "continent"})
FILTER_NAMES = ("date", "venue", "author", "open_access", "type", "preprints", "min_citations", "max_citations",
                *ENTITY_FILTERS, "country", "continent")
CONTINENTS = ("africa", "antarctica", "asia", "europe", "north_america", "oceania", "south_america")

# How each API names the four types (compared lower-case, without punctuation).
_TYPE_SPELLINGS = {
    "article": {"journalarticle", "article", "journal article", "journal-article"},
    "review": {"review", "systematic review", "meta-analysis", "metaanalysis"},
    "preprint": {"preprint", "posted-content", "posted content"},
    "conference": {"conference", "proceedings-article", "congress", "inproceedings", "conference paper"},
}


@dataclass(frozen=True)
class Filters:
    date_from: date | None = None
    date_to: date | None = None
    venue: str | None = None
    author: str | None = None
    open_access: bool = False
    types: tuple[str, ...] = ()
    preprints: bool | None = None  # True: preprints only (--preprints); False: none (--no-preprints)
    min_citations: int | None = None
    max_citations: int | None = None
    # OpenAlex entities as given (an id, or a name until it is resolved to an id).
    source: str | None = None
    institution: str | None = None
    topic: str | None = None
    publisher: str | None = None
    funder: str | None = None
    countries: tuple[str, ...] = ()  # ISO 3166-1 alpha-2 codes, upper case (any of them)
    continents: tuple[str, ...] = ()  # names in CONTINENTS (any of them)
    # What name resolution found (OpenAlex ids), filled in before the providers run.
    resolved: dict[str, tuple[str, str]] = field(default_factory=dict)  # filter -> (id, display name)

    def active(self) -> list[str]:
        present = {
            "date": self.date_from is not None or self.date_to is not None,
            "venue": bool(self.venue),
            "author": bool(self.author),
            "open_access": self.open_access,
            "type": bool(self.types),
            "preprints": self.preprints is not None,
            "min_citations": self.min_citations is not None,
            "max_citations": self.max_citations is not None,
            "country": bool(self.countries),
            "continent": bool(self.continents),
            **{name: bool(getattr(self, name)) for name in ENTITY_FILTERS},
        }
        return [name for name in FILTER_NAMES if present[name]]

    def entity_id(self, name: str) -> str | None:
        """The OpenAlex id of an entity filter once resolved (or given as an id), else None."""
        found = self.resolved.get(name)
        return found[0] if found else None

    def __bool__(self) -> bool:
        return bool(self.active())

    def only(self, names: frozenset[str] | set[str]) -> "Filters":
        """These filters with every one not in ``names`` cleared."""
        return replace(
            self,
            date_from=self.date_from if "date" in names else None,
            date_to=self.date_to if "date" in names else None,
            venue=self.venue if "venue" in names else None,
            author=self.author if "author" in names else None,
            open_access=self.open_access and "open_access" in names,
            types=self.types if "type" in names else (),
            preprints=self.preprints if "preprints" in names else None,
            min_citations=self.min_citations if "min_citations" in names else None,
            max_citations=self.max_citations if "max_citations" in names else None,
            countries=self.countries if "country" in names else (),
            continents=self.continents if "continent" in names else (),
            **{name: getattr(self, name) if name in names else None for name in ENTITY_FILTERS},
            resolved={name: found for name, found in self.resolved.items() if name in names},
        )

    def with_resolution(self, name: str, entity_id: str, display: str) -> "Filters":
        return replace(self, resolved={**self.resolved, name: (entity_id, display)})

    @property
    def year_from(self) -> int | None:
        return self.date_from.year if self.date_from else None

    @property
    def year_to(self) -> int | None:
        return self.date_to.year if self.date_to else None

    @property
    def whole_years(self) -> bool:
        """True when the range is whole calendar years (1 Jan .. 31 Dec), so a year filter suffices."""
        starts = self.date_from is None or (self.date_from.month, self.date_from.day) == (1, 1)
        ends = self.date_to is None or (self.date_to.month, self.date_to.day) == (12, 31)
        return starts and ends

    def describe(self, name: str) -> str:
        if name == "date":
            if self.whole_years:
                low, high = self.year_from, self.year_to
                return f"year {low or ''}–{high or ''}" if low != high else f"year {low}"
            return f"date {self.date_from or '…'} to {self.date_to or '…'}"
        if name == "venue":
            return f"venue '{self.venue}'"
        if name == "author":
            return f"author '{self.author}'"
        if name == "open_access":
            return "open access"
        if name == "type":
            return "type " + "|".join(self.types)
        if name == "preprints":
            return "preprints only" if self.preprints else "no preprints"
        if name == "min_citations":
            return f"at least {self.min_citations} citations"
        if name == "max_citations":
            return f"at most {self.max_citations} citations"
        if name == "country":
            return "country " + "|".join(self.countries)
        if name == "continent":
            return "continent " + "|".join(self.continents)
        given = getattr(self, name)
        if name in self.resolved:
            entity_id, display = self.resolved[name]
            shown = f"{display} ({entity_id})" if display and display != entity_id else entity_id
            return f"{name} '{given}' → {shown}" if given != entity_id else f"{name} {shown}"
        return f"{name} '{given}'"


def parse_year_range(text: str) -> tuple[date | None, date | None]:
    """``2019-2024``, ``2019-``, ``-2015`` or ``2020`` -> first and last day of the range."""
    value = text.strip().replace("–", "-")
    match = re.fullmatch(r"(\d{4})?\s*(-)?\s*(\d{4})?", value)
    if not value or not match or not (match.group(1) or match.group(3)):
        raise ValueError(f"--year takes 2019-2024, 2019-, -2015 or 2020, not {text!r}")
    low, dash, high = match.groups()
    if not dash:
        high = low
    start = date(int(low), 1, 1) if low else None
    end = date(int(high), 12, 31) if high else None
    if start and end and start > end:
        raise ValueError(f"--year range is backwards: {text!r}")
    return start, end


def parse_count_range(text: str, label: str = "--citations") -> tuple[int | None, int | None]:
    """A count range as (at least, at most): ``100`` or ``100-`` or ``>=100`` (at least 100),
    ``>100`` (at least 101), ``<50`` (at most 49), ``-50`` or ``<=50`` (at most 50), ``100-500``."""
    value = re.sub(r"\s+", "", str(text)).replace("–", "-")
    match = re.fullmatch(r"(>=|<=|>|<)?(\d{1,9})(?:(-)(\d{1,9})?)?|-(\d{1,9})", value)
    if not match:
        raise ValueError(f"{label} takes 100 (at least), >100, <50, 100-500, 100- or -50, not {text!r}")
    operator, number, dash, upper, only_upper = match.groups()
    if only_upper is not None:
        return None, int(only_upper)
    low = int(number)
    if dash:
        if operator:
            raise ValueError(f"{label}: {text!r} mixes a comparison and a range")
        high = int(upper) if upper is not None else None
        if high is not None and high < low:
            raise ValueError(f"{label} range is backwards: {text!r}")
        return low, high
    return {">": (low + 1, None), ">=": (low, None), "<": (None, max(low - 1, 0)), "<=": (None, low)}.get(
        operator or "", (low, None))


def parse_day(text: str, flag: str) -> date:
    try:
        return date.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(f"{flag} takes a date as YYYY-MM-DD, not {text!r}") from None


def build_filters(year: str | None = None, since: str | None = None, until: str | None = None,
                  venue: str | None = None, author: str | None = None, open_access: bool = False,
                  types: list[str] | None = None, preprints: bool | None = None, min_citations: int | None = None,
                  max_citations: int | None = None, countries: list[str] | None = None,
                  continents: list[str] | None = None, **entities: str | None) -> Filters:
    """Filters from user input; ValueError with a clear message on bad values. ``entities``:
    source, institution, topic, publisher, funder (an OpenAlex id or a name)."""
    unknown = set(entities) - set(ENTITY_FILTERS)
    if unknown:
        raise TypeError(f"unknown filters: {', '.join(sorted(unknown))}")
    date_from = date_to = None
    if year:
        date_from, date_to = parse_year_range(year)
    if since:
        day = parse_day(since, "--since")
        date_from = max(day, date_from) if date_from else day
    if until:
        day = parse_day(until, "--until")
        date_to = min(day, date_to) if date_to else day
    if date_from and date_to and date_from > date_to:
        raise ValueError("the date filters leave an empty range")
    chosen: list[str] = []
    for value in types or []:
        for part in value.split(","):
            name = part.strip().lower()
            if not name:
                continue
            if name not in PAPER_TYPES:
                raise ValueError(f"--type takes {', '.join(PAPER_TYPES)}, not {part.strip()!r}")
            if name not in chosen:
                chosen.append(name)
    if min_citations is not None and min_citations < 0:
        raise ValueError("--min-citations cannot be negative")
    if max_citations is not None and max_citations < 0:
        raise ValueError("the most citations cannot be negative")
    if min_citations is not None and max_citations is not None and min_citations > max_citations:
        raise ValueError(f"the citation range is backwards: at least {min_citations}, at most {max_citations}")
    if (preprints and chosen and "preprint" not in chosen) or (preprints is False and chosen == ["preprint"]):
        raise ValueError(f"--{'' if preprints else 'no-'}preprints and --type {','.join(chosen)} disagree; "
                         "give one of them")
    return Filters(date_from=date_from, date_to=date_to, venue=(venue or "").strip() or None,
                   author=(author or "").strip() or None, open_access=open_access, types=tuple(chosen),
                   preprints=preprints,
                   min_citations=min_citations, max_citations=max_citations,
                   countries=_country_codes(countries or []), continents=_continent_names(continents or []),
                   **{name: (entities.get(name) or "").strip() or None for name in ENTITY_FILTERS})


def _split(values: list[str]) -> list[str]:
    return [part.strip() for value in values for part in str(value).split(",") if part.strip()]


def _country_codes(values: list[str]) -> tuple[str, ...]:
    codes = []
    for part in _split(values):
        if not re.fullmatch(r"[A-Za-z]{2}", part):
            raise ValueError(f"--country takes two-letter ISO country codes (DE, US, BR), not {part!r}")
        codes.append(part.upper())
    return tuple(dict.fromkeys(codes))


def _continent_names(values: list[str]) -> tuple[str, ...]:
    names = []
    for part in _split(values):
        name = re.sub(r"[\s-]+", "_", part.lower())
        if name not in CONTINENTS:
            raise ValueError(f"--continent takes {', '.join(CONTINENTS)}, not {part!r}")
        names.append(name)
    return tuple(dict.fromkeys(names))


# --- checking a paper's own data ------------------------------------------------------

def paper_types(paper: Paper) -> set[str]:
    found = set()
    for raw in paper.publication_types:
        spelled = re.sub(r"[^a-z -]", "", str(raw).lower()).strip()
        compact = spelled.replace(" ", "")
        for name, spellings in _TYPE_SPELLINGS.items():
            if spelled in spellings or compact in spellings:
                found.add(name)
    if paper.arxiv_id and not paper.doi:
        found.add("preprint")
    return found


def _paper_date(paper: Paper) -> tuple[date | None, bool]:
    """The paper's date and whether it is exact (a full date) or only a year."""
    if isinstance(paper.publication_date, str):
        try:
            return date.fromisoformat(paper.publication_date[:10]), True
        except ValueError:
            pass
    if isinstance(paper.year, int) and date.min.year <= paper.year <= date.max.year:
        return date(paper.year, 1, 1), False
    return None, False


def matches_date(paper: Paper, filters: Filters) -> bool:
    day, exact = _paper_date(paper)
    if day is None:
        return False
    if not exact:  # only a year: compare years
        low = filters.year_from or 0
        high = filters.year_to or 9999
        return low <= day.year <= high
    return (filters.date_from is None or day >= filters.date_from) and (filters.date_to is None or day <= filters.date_to)


def matches_venue(paper: Paper, venue: str) -> bool:
    """Every word of the asked venue starts a word of the paper's venue, in order
    ("Nat Biotechnol" matches "Nature Biotechnology")."""
    wanted = fold_title(venue).split()
    have = fold_title(paper.journal or "").split()
    position = 0
    for word in wanted:
        while position < len(have) and not have[position].startswith(word):
            position += 1
        if position == len(have):
            return False
        position += 1
    return bool(wanted)


def matches_author(paper: Paper, author: str) -> bool:
    """The asked surname is a word of some author's name; given names match as words or initials."""
    wanted = fold_title(author).split()
    if not wanted:
        return False
    for name in paper.authors:
        words = fold_title(name).split()
        if any(w == wanted[-1] for w in words) or any(w == wanted[0] for w in words[-1:]):
            others = wanted[:-1] if wanted[-1] in words else wanted[1:]
            if all(any(w.startswith(o) or o.startswith(w) for w in words) for o in others):
                return True
    return False


def has_data(paper: Paper, name: str) -> bool:
    """Whether ``paper`` carries the data a filter looks at."""
    return {
        "date": bool(paper.publication_date or paper.year),
        "venue": bool(paper.journal),
        "author": bool(paper.authors),
        # Open access always counts as known: a row is only useful with a link to the text.
        "open_access": True,
        "type": bool(paper.publication_types or paper.arxiv_id),
        "preprints": True,  # every record is a preprint or not (core/preprints.py)
        "min_citations": paper.citation_count is not None,
        "max_citations": paper.citation_count is not None,
        "source": bool(paper.journal),
    }.get(name, False)  # OpenAlex-only filters: no record carries their data


def passes(records: list[Paper], filters: Filters, name: str, vouched: bool) -> bool:
    """The rule in the module docstring, for one filter over a paper's records; but a paper is
    a preprint only when every record of it is one (a published paper with its preprint merged
    in is the published paper), whoever applied the filter."""
    if name == "preprints":
        return only_preprints(records) is filters.preprints
    if any(matches(record, filters, name) for record in records):
        return True
    return vouched and not any(has_data(record, name) for record in records)


def matches(paper: Paper, filters: Filters, name: str) -> bool:
    if name == "date":
        return matches_date(paper, filters)
    if name == "venue":
        return matches_venue(paper, filters.venue or "")
    if name == "author":
        return matches_author(paper, filters.author or "")
    if name == "open_access":
        return bool(paper.oa_url)
    if name == "type":
        return bool(paper_types(paper) & set(filters.types))
    if name == "preprints":
        return is_preprint(paper) is filters.preprints
    if name == "min_citations":
        return (paper.citation_count or 0) >= (filters.min_citations or 0)
    if name == "max_citations":
        return paper.citation_count is not None and paper.citation_count <= (filters.max_citations or 0)
    if name == "source":  # by the resolved name: the records of other providers carry no source id
        found = filters.resolved.get("source")
        return bool(found and found[1] != found[0] and matches_venue(paper, found[1]))
    if name in OPENALEX_ONLY_FILTERS:
        return False
    raise KeyError(name)
