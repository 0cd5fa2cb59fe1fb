"""Deep-search sessions built in memory for the tests of what the commands say and write (no
provider, no file): a topic, candidates from one search, rounds, a batch."""

from __future__ import annotations

from litsearch.core.filters import Filters
from litsearch.core.records import Paper
from litsearch.deep.pool import Pool
from litsearch.deep.session import Options, Round, Session


def paper(n: int, **fields) -> Paper:
    fields.setdefault("title", f"Coral bleaching study number {n}")
    return Paper(provider="openalex", doi=f"10.5555/t{n}", year=2001,
                 abstract="We surveyed the reef after the bleaching event. " * 3, **fields)


def titled(title: str, **ids) -> Paper:
    """A record of ``title`` with the ids given, and nothing else."""
    return Paper(provider="openalex", title=title, **ids)


def session_with(papers: list[Paper], batch: int = 3) -> Session:
    """A session on graph colouring in round 1 whose candidates are ``papers`` from one search,
    the first ``batch`` of them shown (the verdict lists' and the stop rule's tests)."""
    session = Session(topic="graph colouring heuristics", variants=[], filters=Filters(), options=Options(batch=batch))
    session.rounds.append(Round(1))
    pool = Pool(session)
    pool.add([(p, {"round": 1, "via": "search", "provider": "openalex", "rank": i + 1}) for i, p in enumerate(papers)])
    session.batch = list(session.candidates)[:batch]
    return session


def session_of(papers: int | list[Paper], batch: int, **options) -> Session:
    """A session in round 1 whose candidates are ``papers`` (or that many made-up ones), the first
    ``batch`` of them shown."""
    found = [paper(n) for n in range(1, papers + 1)] if isinstance(papers, int) else papers
    session = Session(topic="coral reef bleaching", variants=[], filters=Filters(),
                      options=Options(batch=batch, **options), created_at="2026-11-27T10:00:00Z")
    session.rounds.append(Round(1, requests={"openalex": 1}, actions=["search of OpenAlex: 1 paper"]))
    session.search_providers = ["openalex"]
    Pool(session).add([(each, {"round": 1, "via": "search", "provider": "openalex", "rank": n})
                       for n, each in enumerate(found, start=1)])
    session.batch = list(session.candidates)[:batch]
    return session
