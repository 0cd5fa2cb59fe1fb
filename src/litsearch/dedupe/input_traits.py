"""What the engine learns from the input as a whole before comparing pairs.

Two traits no single record shows:
- **Record numbers in the issue field.** Some exports put the database's record number in
  the field that normally holds the issue (``number``). Issue numbers repeat across a
  file (most journals have a handful per volume); record numbers do not. When nearly every
  record has a different value, the field is not compared as an issue.
- **Recurring titles.** A journal column or editorial ("Editor's Comments", "From the
  editor…") carries the same title in issue after issue, often by the same editor and
  without pages. A title is recurring when records giving it in agreeing venues, in the same
  or the next year, disagree on where they were printed (different issues, pages or volumes);
  every record with that title then needs its full citation to merge (as a generic title).
  Two exports of one supplement abstract are not a column: when one files the supplement's
  number as the volume ("1" against "61", same year, same or no pages), the volumes do not
  count as printed apart (judge.supplement_volume_mixup).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace

from .features import Profile

# At least this many records name an issue, and almost all differently: record numbers.
_RECORD_NUMBER_MIN = 20
_RECORD_NUMBER_DISTINCT = 0.9
_RECURRING_PAIRS_CHECKED = 200  # a long list of one title: its first records tell


def learn_from_input(profiles: Sequence[Profile]) -> tuple[list[Profile], list[str]]:
    """The profiles with what the whole input says applied, and one note per finding."""
    profiles = list(profiles)
    notes: list[str] = []
    issues = [p.issues for p in profiles if p.issues]
    if len(issues) >= _RECORD_NUMBER_MIN and len(set(issues)) >= _RECORD_NUMBER_DISTINCT * len(issues):
        profiles = [replace(p, issues=frozenset()) if p.issues else p for p in profiles]
        notes.append(f"the issue field holds a different value in {len(set(issues))} of {len(issues)} records: "
                     "record numbers, not issues, so it was not compared")
    recurring = _recurring_titles(profiles)
    if recurring:
        profiles = [replace(p, recurring=True) if p.title in recurring and not p.generic else p for p in profiles]
        notes.append(f"{len(recurring)} title(s) recur in one venue with different citations (journal columns); "
                     "their records merge only on a shared identifier or the full citation")
    return profiles, notes


def _recurring_titles(profiles: Sequence[Profile]) -> set[str]:
    from .judge import journals_agree

    by_title: dict[str, list[Profile]] = defaultdict(list)
    for profile in profiles:
        if profile.title and not profile.generic:
            by_title[profile.title].append(profile)
    found = set()
    for title, group in by_title.items():
        if len(group) < 2:
            continue
        distinct = list(dict.fromkeys(group))[:_RECURRING_PAIRS_CHECKED]
        if any(_printed_apart(a, b) and journals_agree(a, b) is not False
               for n, a in enumerate(distinct) for b in distinct[n + 1:]):
            found.add(title)
    return found


def _printed_apart(a: Profile, b: Profile) -> bool:
    """Two records of one title, in the same or the next year, printed in different issues,
    volumes or pages: a column. Years further apart are versions or reprints, not a column;
    notices (an erratum under the article's title) are not counted either."""
    from .judge import issue_typo, issues_conflict, venue_agreement

    if a.notice or b.notice or (a.year and b.year and abs(a.year - b.year) > 1):
        return False
    return (issues_conflict(a, b) and not issue_typo(a, b)) or venue_agreement(a, b) == "conflict"
