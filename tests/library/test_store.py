"""The SQLite store: the response cache's table (net/response_store.py), the saved-paper library, citation
links, schema handling."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from litsearch.library import schema as schema_module
from litsearch.net.http import FetchedResponse
from litsearch.library.store import Store
from litsearch.net.response_store import STALE_KEEP_SECONDS, ResponseStore
from litsearch.providers.registry import services

# Each service declares how long its answers are cached.
CACHE_TTL_SECONDS = {name: declared.cache_ttl for name, declared in services().items()}
from litsearch.core.config import DB_FILENAME, default_store_path
from litsearch.core.errors import StoreError, UsageError
from litsearch.net.cache_keys import cache_key, strip_identity_params
from litsearch.runtime.settings import settings_from_env

SECRET = "s2-secret-key-0123456789"
T0 = 1_700_000_000.0


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / DB_FILENAME


@pytest.fixture
def store(db_path: Path):
    with Store.open(db_path) as opened:
        yield opened


def response(body: bytes = b'{"ok": true}', url: str = "https://api.openalex.org/works?search=x",
             headers: dict | None = None, status: int = 200) -> FetchedResponse:
    return FetchedResponse(status, headers or {"Content-Type": "application/json"}, body, url)


# ---------------------------------------------------------------- response cache

def test_cache_put_then_get_returns_the_response(store):
    ResponseStore(store).put("openalex", "k1", response(headers={"Content-Type": "application/json", "X-Count": "3"}),
                    ttl_seconds=60, now=T0)
    hit = ResponseStore(store).get("openalex", "k1", now=T0 + 10)
    assert (hit.status, hit.content, hit.url) == (200, b'{"ok": true}', "https://api.openalex.org/works?search=x")
    assert hit.headers == {"content-type": "application/json", "x-count": "3"}
    assert hit.content_type == "application/json"  # usable as a FetchedResponse
    assert (hit.stored_at, hit.expires_at, hit.stale) == (T0, T0 + 60, False)
    assert ResponseStore(store).get("openalex", "other", now=T0) is None
    assert ResponseStore(store).get("pubmed", "k1", now=T0) is None  # keys are per provider


def test_expired_entries_are_ignored_unless_stale_is_allowed(store):
    ResponseStore(store).put("arxiv", "k", response(), ttl_seconds=CACHE_TTL_SECONDS["arxiv"], now=T0)
    assert ResponseStore(store).get("arxiv", "k", now=T0 + 86_399) is not None
    assert ResponseStore(store).get("arxiv", "k", now=T0 + 86_400) is None
    stale = ResponseStore(store).get("arxiv", "k", now=T0 + 86_400 + 5, allow_stale=True)
    assert stale is not None and stale.stale is True and stale.content == b'{"ok": true}'


def test_a_put_replaces_the_entry_and_prunes_long_expired_ones(store):
    ResponseStore(store).put("web", "old", response(b"old"), ttl_seconds=10, now=T0)
    ResponseStore(store).put("web", "recent", response(b"recent"), ttl_seconds=10, now=T0 + STALE_KEEP_SECONDS)
    ResponseStore(store).put("web", "recent", response(b"newer"), ttl_seconds=10, now=T0 + STALE_KEEP_SECONDS + 20)
    # "old" expired more than STALE_KEEP_SECONDS before the last put: pruned. "recent" stays for --offline.
    later = T0 + STALE_KEEP_SECONDS + 100
    assert ResponseStore(store).get("web", "old", now=later, allow_stale=True) is None
    assert ResponseStore(store).get("web", "recent", now=later, allow_stale=True).content == b"newer"


def test_cache_clear_by_provider_and_all(store):
    for provider in ("openalex", "pubmed"):
        for key in ("a", "b"):
            ResponseStore(store).put(provider, key, response(), ttl_seconds=60, now=T0)
    assert ResponseStore(store).clear("pubmed") == 2
    assert ResponseStore(store).get("pubmed", "a", now=T0) is None and ResponseStore(store).get("openalex", "a", now=T0)
    assert ResponseStore(store).clear() == 2
    assert ResponseStore(store).get("openalex", "a", now=T0) is None


def test_ttl_must_be_positive(store):
    with pytest.raises(ValueError):
        ResponseStore(store).put("web", "k", response(), ttl_seconds=0)


def test_ttls_per_provider_are_data():
    # A day unless the service declares longer: DOI metadata and open-access locations change slowly.
    day = 86_400
    assert {name: ttl for name, ttl in CACHE_TTL_SECONDS.items() if ttl != day} == {"crossref": 7 * day,
                                                                                    "unpaywall": 7 * day}
    assert {"semantic_scholar", "openalex", "pubmed", "arxiv", "web"} <= set(CACHE_TTL_SECONDS)


def test_cache_keys_ignore_identity_parameters_and_order():
    url = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/esearch.fcgi"
    plain = cache_key("GET", url, {"db": "pubmed", "term": "crispr"})
    keyed = cache_key("get", url, {"term": "crispr", "db": "pubmed", "api_key": SECRET, "email": "a@b.c",
                                   "tool": "lit-search"})
    in_url = cache_key("GET", f"{url}?term=crispr&api_key={SECRET}&mailto=a%40b.c", [("db", "pubmed")])
    assert plain == keyed == in_url
    assert len(plain) == 64 and SECRET not in plain
    assert cache_key("GET", url, {"db": "pubmed", "term": "cas9"}) != plain
    assert cache_key("POST", url, {"db": "pubmed", "term": "crispr"}) != plain


def test_cache_keys_of_bodies_ignore_identity_fields():
    url = "https://eutils.ncbi.nlm.nih.gov/entrez/eutils/efetch.fcgi"
    form = cache_key("POST", url, None, {"db": "pubmed", "id": "1,2", "api_key": SECRET, "tool": "t"})
    assert form == cache_key("POST", url, None, {"id": "1,2", "db": "pubmed"})
    assert form == cache_key("POST", url, None, b"id=1%2C2&db=pubmed&email=a%40b.c")
    json_body = cache_key("POST", "https://api.tavily.com/search", None, {"query": "q", "max_results": 5})
    assert json_body == cache_key("POST", "https://api.tavily.com/search", None, '{"max_results": 5, "query": "q"}')
    assert json_body != cache_key("POST", "https://api.tavily.com/search", None, {"query": "other", "max_results": 5})
    assert cache_key("POST", url, None, b"\xff\xfe raw") != cache_key("POST", url, None, b"\xff\xfd raw")


def test_stored_urls_lose_identity_parameters(store):
    url = f"https://api.openalex.org/works?search=a%20b&api_key={SECRET}&mailto=me%40x.org&per_page=5&tool=t"
    assert strip_identity_params(url) == "https://api.openalex.org/works?search=a%20b&per_page=5"
    ResponseStore(store).put("openalex", "k", response(url=url), ttl_seconds=60, now=T0)
    stored = ResponseStore(store).get("openalex", "k", now=T0).url
    assert SECRET not in stored and "mailto" not in stored


def test_secrets_echoed_in_bodies_headers_and_urls_are_redacted(db_path):
    settings = settings_from_env({"SEMANTIC_SCHOLAR_API_KEY": SECRET})
    body = f'{{"error": "bad key {SECRET}"}}'.encode() + b"\xff\xfe not utf-8 \xc3\xa9"
    echoed = response(body=body, url=f"https://api.semanticscholar.org/x?key={SECRET}",
                      headers={"X-Echo": SECRET, "Content-Type": "application/json"}, status=403)
    with Store.open(db_path, redact=settings.redact) as store:
        ResponseStore(store).put("semantic_scholar", "k", echoed, ttl_seconds=60, now=T0)
        hit = ResponseStore(store).get("semantic_scholar", "k", now=T0)
    assert hit.content == b'{"error": "bad key [redacted]"}\xff\xfe not utf-8 \xc3\xa9'  # other bytes untouched
    assert hit.headers["x-echo"] == "[redacted]"
    assert hit.url == "https://api.semanticscholar.org/x?key=[redacted]"
    on_disk = b"".join(p.read_bytes() for p in db_path.parent.iterdir())
    assert SECRET.encode() not in on_disk


def test_without_redact_the_body_is_stored_as_is(store):
    body = bytes(range(256))
    ResponseStore(store).put("web", "bin", response(body=body), ttl_seconds=60, now=T0)
    assert ResponseStore(store).get("web", "bin", now=T0).content == body


# ---------------------------------------------------------------- library

FULL = {
    "doi": "10.1038/nbt.2647", "pmid": "23873081", "arxiv_id": "1308.0001", "openalex_id": "W2040000001",
    "paper_id": "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
    "title": "DNA targeting specificity of RNA-guided Cas9 nucleases", "authors": ["Hsu PD", "Scott DA"],
    "year": 2013, "journal": "Nature Biotechnology", "abstract": "Short.", "citation_count": 100,
    "external_ids": {"DOI": "10.1038/nbt.2647", "PMID": "23873081"},
}


@pytest.mark.parametrize("partial", [
    {"doi": "https://doi.org/10.1038/NBT.2647"},
    {"pmid": "PMID:23873081"},
    {"arxiv_id": "arXiv:1308.0001v3"},
    {"openalex_id": "https://openalex.org/W2040000001"},
    {"paper_id": "A1B2C3D4E5F60718293A4B5C6D7E8F9012345678"},
    {"external_ids": {"PubMed": "23873081"}},
    {"doi": "10.48550/arXiv.1308.0001"},
], ids=["doi", "pmid", "arxiv", "openalex", "s2", "external_ids", "arxiv-doi"])
def test_save_updates_the_paper_sharing_any_identifier(store, partial):
    [first] = store.save_papers([FULL])
    again = store.save_papers([{"title": "DNA targeting specificity", **partial}])
    assert again == [first]
    assert len(store.list_papers()) == 1


def test_saving_merges_identifiers_and_keeps_richer_values(store):
    [paper] = store.save_papers([{"doi": "10.1000/a", "title": "A paper", "authors": ["Ng A"], "year": 2020,
                                  "abstract": "Short abstract.", "citation_count": 5, "external_ids": {"DOI": "10.1000/a"}}])
    assert store.save_papers([{"doi": "10.1000/A", "pmid": "111", "title": "A paper (updated)", "authors": [],
                               "abstract": "A much longer abstract of the paper.", "citation_count": 3,
                               "external_ids": {"PubMed": "111", "MAG": "42"}}]) == [paper]
    assert store.save_papers([{"pmid": "111", "arxiv_id": "2001.00001", "openalex_id": "W9",
                               "paper_id": "f" * 40, "title": "A paper", "journal": "J"}]) == [paper]
    assert store.library_identifiers() == {paper: {
        "arxiv_id": ["2001.00001"], "doi": ["10.1000/a"], "openalex_id": ["W9"], "paper_id": ["f" * 40],
        "pmid": ["111"]}}
    record = store.get_paper(paper)
    assert record["title"] == "A paper" and record["authors"] == ["Ng A"] and record["journal"] == "J"
    assert record["abstract"] == "A much longer abstract of the paper." and record["citation_count"] == 5
    assert record["external_ids"] == {"DOI": "10.1000/a", "PubMed": "111", "MAG": "42"}
    assert record["pmid"] == "111" and record["library_id"] == paper and record["saved_at"].endswith("Z")


def test_published_version_replaces_the_arxiv_doi(store):
    [preprint] = store.save_papers([{"doi": "10.48550/arxiv.2005.14165", "arxiv_id": "2005.14165", "title": "GPT-3"}])
    assert store.save_papers([{"doi": "10.5555/3495724.3495883", "arxiv_id": "2005.14165v4",
                               "title": "GPT-3"}]) == [preprint]
    assert store.get_paper(preprint)["doi"] == "10.5555/3495724.3495883"
    assert store.list_papers()[0].doi == "10.5555/3495724.3495883"


def test_papers_with_different_dois_are_never_merged(store):
    # Conference and journal versions may share other ids; different DOIs keep them apart.
    first, second = store.save_papers([{"doi": "10.1007/conf.1", "paper_id": "s2-shared", "title": "Fast search"},
                                       {"doi": "10.1016/journal.1", "paper_id": "s2-shared", "title": "Fast search"}])
    assert first != second
    assert store.get_paper("10.1016/journal.1")["library_id"] == second
    assert store.get_paper("s2-shared")["library_id"] == first  # the id stays with its first owner


# Two abstracts of one congress supplement: one DOI, volume and page, different works.
SUPPLEMENT_A = {"doi": "10.1016/S0168-8278(12)60001-0", "title": "Hepatitis C treatment outcomes in a cohort "
                "of 500 patients", "year": 2012, "authors": ["Smith A"], "journal": "J Hepatol", "volume": "56",
                "pages": "S1"}
SUPPLEMENT_B = {"doi": "10.1016/s0168-8278(12)60001-0", "title": "Liver transplantation and renal failure: a "
                "registry study", "year": 2012, "authors": ["Jones B"], "journal": "J Hepatol", "volume": "56",
                "pages": "S1"}


def test_a_doi_shared_by_different_works_keeps_both_papers(store):
    # Search keeps such records apart (the dedupe engine's rule); saving them must not merge
    # the second into the first and lose it.
    first, second = store.save_papers([SUPPLEMENT_A, SUPPLEMENT_B])
    assert first != second
    assert store.get_paper(second)["title"] == SUPPLEMENT_B["title"]
    assert store.get_paper(first)["title"] == SUPPLEMENT_A["title"]
    assert store.get_paper(SUPPLEMENT_A["doi"])["library_id"] == first  # the DOI names the first saved
    # Saved again (in either order, with more detail), each updates its own paper.
    assert store.save_papers([{**SUPPLEMENT_B, "pmid": "22000002", "abstract": "Registry data."},
                              {**SUPPLEMENT_A, "citation_count": 4}]) == [second, first]
    assert len(store.list_papers()) == 2
    assert store.get_paper("PMID:22000002")["library_id"] == second
    assert store.get_paper(second)["abstract"] == "Registry data."
    assert store.get_paper(first)["citation_count"] == 4


def test_a_shared_identifier_with_the_same_title_is_one_paper(store):
    # The same abstract saved from PubMed (PMID) and from Crossref (DOI), then both ids at once.
    by_pmid = store.save_papers([{**SUPPLEMENT_A, "doi": None, "pmid": "22000001"}])
    assert store.save_papers([{**SUPPLEMENT_A, "title": SUPPLEMENT_A["title"].upper() + "."}]) == by_pmid
    assert store.save_papers([{**SUPPLEMENT_A, "pmid": "22000001"}]) == by_pmid
    assert len(store.list_papers()) == 1


def test_papers_without_identifiers_match_by_title_and_year(store):
    first = store.save_papers([{"title": "On <i>Things</i>!", "year": 1999}])
    assert store.save_papers([{"title": "on things", "year": 1999, "abstract": "x"}]) == first
    assert store.save_papers([{"title": "on things", "year": 2000}]) != first
    assert store.get_paper(first[0])["abstract"] == "x"


def test_get_paper_by_every_identifier_form(store):
    first, target = store.save_papers([{"doi": "10.1000/other", "title": "Other"}, FULL])
    assert target == 2
    forms = [target, f"#{target}", str(target), "10.1038/nbt.2647", "https://doi.org/10.1038/NBT.2647",
             "doi:10.1038/nbt.2647", "https://dx.doi.org/10.1038%2Fnbt.2647", "PMID:23873081", "pmid 23873081",
             "https://pubmed.ncbi.nlm.nih.gov/23873081/", "23873081", "1308.0001", "1308.0001v2",
             "arXiv:1308.0001", "https://arxiv.org/abs/1308.0001v1", "10.48550/arXiv.1308.0001",
             "W2040000001", "https://openalex.org/W2040000001", "a1b2c3d4e5f60718293a4b5c6d7e8f9012345678",
             "https://www.semanticscholar.org/paper/DNA-targeting/a1b2c3d4e5f60718293a4b5c6d7e8f9012345678"]
    for form in forms:
        found = store.get_paper(form)
        assert found is not None and found["library_id"] == target, form
    for missing in (99, "#99", "99", "10.1000/missing", "PMID:1", "2101.99999", "W1", "nothing"):
        assert store.get_paper(missing) is None, missing


def test_a_bare_number_that_is_both_a_library_id_and_a_pmid_is_refused(store):
    store.save_papers([{"doi": "10.1000/a", "title": "A"}, {"pmid": "1", "title": "B"}])
    with pytest.raises(UsageError, match="write #1 or PMID:1"):  # the user's words are ambiguous: exit 2
        store.get_paper("1")
    assert store.get_paper("#1")["title"] == "A" and store.get_paper("PMID:1")["title"] == "B"


def test_find_by_identifiers_accepts_result_and_external_id_keys(store):
    [paper] = store.save_papers([FULL])
    assert store.find_by_identifiers({"DOI": "10.1038/NBT.2647"}) == paper
    assert store.find_by_identifiers({"external_ids": {"ArXiv": "1308.0001"}}) == paper
    assert store.find_by_identifiers({"S2": FULL["paper_id"]}) == paper
    assert store.find_by_identifiers({"openalex_id": "W2040000001", "doi": None}) == paper
    assert store.find_by_identifiers({"doi": "10.1000/nope"}) is None
    assert store.find_by_identifiers({}) is None


def test_library_ids_are_stable_and_never_reused(store):
    a, b = store.save_papers([{"doi": "10.1000/a", "title": "A"}, {"doi": "10.1000/b", "title": "B"}])
    assert store.remove_paper(a) is True
    [c] = store.save_papers([{"doi": "10.1000/c", "title": "C"}])
    assert c not in (a, b)
    assert store.save_papers([{"doi": "10.1000/b", "title": "B"}]) == [b]


def test_citations_ignore_duplicates_self_loops_and_unknown_ids(store):
    a, b, c, d = store.save_papers([{"doi": f"10.1000/{n}", "title": n, "authors": [f"{n.upper()} Author"]}
                                    for n in "abcd"])
    assert store.add_citations([(a, b), (a, b), (b, c), (c, c), (a, c), (d, a), (a, 999)]) == 4
    assert store.add_citations([(a, b)]) == 0
    assert store.citations_among() == sorted([(a, b), (b, c), (a, c), (d, a)])
    assert store.citations_among([a, b, c]) == sorted([(a, b), (a, c), (b, c)])
    assert store.citations_among([]) == []
    listing = {p.id: p for p in store.list_papers()}
    assert (listing[a].cites, listing[a].cited_by) == (2, 1)
    assert (listing[c].cites, listing[c].cited_by) == (0, 2)
    assert (listing[a].title, listing[a].first_author, listing[a].doi) == ("a", "A Author", "10.1000/a")


def test_remove_paper_removes_its_edges_and_identifiers(store):
    a, b, c = store.save_papers([{"doi": f"10.1000/{n}", "pmid": str(100 + i), "title": n}
                                 for i, n in enumerate("abc")])
    store.add_citations([(a, b), (b, c), (a, c)])
    assert store.remove_paper("PMID:101") is True  # b
    assert store.citations_among() == [(a, c)]
    assert store.get_paper("10.1000/b") is None and b not in store.library_identifiers()
    assert store.remove_paper(b) is False
    assert [p.id for p in store.list_papers()] == [a, c]
    # Its identifiers are free again: saving it anew makes a new paper.
    assert store.save_papers([{"doi": "10.1000/b", "title": "b"}]) not in ([a], [b], [c])


# ---------------------------------------------------------------- schema, damage, location

def test_new_store_uses_wal_and_a_busy_timeout(store, db_path):
    assert db_path.exists()
    assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store._db.execute("PRAGMA busy_timeout").fetchone()[0] >= 10_000
    assert store._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"


class _BusyAtFirst:
    """A connection whose WAL switch answers SQLITE_BUSY at once, as SQLite does when
    another process opens a new file at the same moment (its busy handler never runs)."""

    def __init__(self, db: sqlite3.Connection, busy_answers: int):
        self._db, self.busy_answers, self.tries = db, busy_answers, 0

    def execute(self, sql: str, *args):
        if sql.startswith("PRAGMA journal_mode"):
            self.tries += 1
            if self.tries <= self.busy_answers:
                raise sqlite3.OperationalError("database is locked")
        return self._db.execute(sql, *args)

    def __getattr__(self, name: str):
        return getattr(self._db, name)


class _FakeClock:
    def __init__(self):
        self.now, self.slept = 0.0, []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def test_an_immediate_busy_answer_while_opening_is_retried(db_path):
    db_path.parent.mkdir(parents=True)
    db = _BusyAtFirst(sqlite3.connect(db_path, isolation_level=None), busy_answers=3)
    clock = _FakeClock()
    schema_module.prepare(db, db_path, clock=clock, sleep=clock.sleep)
    assert db.tries == 4 and len(clock.slept) == 3
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == "1"
    db.close()


def test_a_file_busy_for_longer_than_the_timeout_is_reported(db_path):
    db_path.parent.mkdir(parents=True)
    db = _BusyAtFirst(sqlite3.connect(db_path, isolation_level=None), busy_answers=10**6)
    clock = _FakeClock()
    with pytest.raises(sqlite3.OperationalError):
        schema_module.prepare(db, db_path, clock=clock, sleep=clock.sleep)
    assert schema_module.BUSY_TIMEOUT_SECONDS - 0.2 <= clock.now <= schema_module.BUSY_TIMEOUT_SECONDS
    assert "busy" in str(schema_module.translate(sqlite3.OperationalError("database is locked"), db_path))
    db.close()


def _set_version(path: Path, version: int) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    db.close()


def test_a_newer_schema_is_refused_and_left_untouched(db_path):
    with Store.open(db_path) as store:
        store.save_papers([{"doi": "10.1000/a", "title": "A"}])
    _set_version(db_path, 7)
    before = db_path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store.open(db_path)
    assert str(caught.value) == (f"the lit-search database at {db_path} was written by a newer lit-search "
                                 "(schema 7); upgrade lit-search or point LITSEARCH_CACHE_DIR elsewhere")
    assert db_path.read_bytes() == before


def test_a_version_0_database_is_migrated_in_place(db_path):
    db_path.parent.mkdir(parents=True)
    db = sqlite3.connect(db_path)
    with db:  # version 0: the meta table only, plus something of the user's that must survive
        db.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        db.execute("INSERT INTO meta VALUES ('schema_version', '0'), ('note', 'keep me')")
    db.close()
    with Store.open(db_path) as store:
        assert store.save_papers([{"doi": "10.1000/a", "title": "A"}]) == [1]
        assert store._db.execute("SELECT value FROM meta WHERE key = 'note'").fetchone() == ("keep me",)
        assert store._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
        assert store._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_migrations_run_in_order_and_keep_data(db_path, monkeypatch):
    with Store.open(db_path) as store:
        [paper] = store.save_papers([{"doi": "10.1000/a", "title": "A"}])

    def add_tags(db):
        db.execute("ALTER TABLE papers ADD COLUMN tags TEXT NOT NULL DEFAULT ''")

    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(schema_module.MIGRATIONS, 1, add_tags)
    with Store.open(db_path) as store:
        assert store.get_paper("10.1000/a")["library_id"] == paper
        assert store._db.execute("SELECT tags FROM papers").fetchall() == [("",)]
        assert store._db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("2",)


def test_a_failing_migration_leaves_the_old_version(db_path, monkeypatch):
    with Store.open(db_path) as store:
        store.save_papers([{"doi": "10.1000/a", "title": "A"}])

    def broken(db):
        db.execute("ALTER TABLE papers ADD COLUMN half_done TEXT")
        raise RuntimeError("migration bug")

    monkeypatch.setattr(schema_module, "SCHEMA_VERSION", 2)
    monkeypatch.setitem(schema_module.MIGRATIONS, 1, broken)
    with pytest.raises(RuntimeError):
        Store.open(db_path)
    db = sqlite3.connect(db_path)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
    assert "half_done" not in [row[1] for row in db.execute("PRAGMA table_info(papers)")]
    db.close()


def _assert_damaged_and_untouched(path: Path) -> None:
    before = path.read_bytes()
    with pytest.raises(StoreError) as caught:
        Store.open(path)
    message = str(caught.value)
    assert message.startswith(f"the lit-search database at {path} is damaged (")
    assert message.endswith("); move it away to start fresh — it was not modified")
    assert "\n" not in message
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]  # no journal left behind


def test_a_file_that_is_not_a_database_is_reported_and_left_alone(db_path):
    db_path.parent.mkdir(parents=True)
    db_path.write_bytes(b"this is not a database, just some text the user put here\n" * 100)
    _assert_damaged_and_untouched(db_path)


def test_a_truncated_database_is_reported_and_left_alone(db_path):
    with Store.open(db_path) as store:
        store.save_papers([{"doi": f"10.1000/{i}", "title": f"Paper {i}", "abstract": "x" * 2000}
                           for i in range(200)])
    data = db_path.read_bytes()
    assert len(data) > 100_000
    db_path.write_bytes(data[: len(data) // 2])
    _assert_damaged_and_untouched(db_path)


def test_another_programs_database_is_not_taken_over(db_path):
    db_path.parent.mkdir(parents=True)
    db = sqlite3.connect(db_path)
    with db:
        db.execute("CREATE TABLE photos (id INTEGER PRIMARY KEY, name TEXT)")
    db.close()
    _assert_damaged_and_untouched(db_path)


def test_a_closed_store_says_so(db_path):
    store = Store.open(db_path)
    store.close()
    with pytest.raises(StoreError, match="closed"):
        store.list_papers()


def test_default_path_follows_the_environment(tmp_path):
    home = str(tmp_path / "home")
    assert default_store_path({"LITSEARCH_CACHE_DIR": str(tmp_path / "c"), "HOME": home}, "linux") == \
        tmp_path / "c" / "lit-search.sqlite3"
    assert default_store_path({"XDG_DATA_HOME": str(tmp_path / "xdg"), "HOME": home}, "linux") == \
        tmp_path / "xdg" / "lit-search" / "lit-search.sqlite3"
    expected_home = Path(home) / ".local" / "share" / "lit-search" / "lit-search.sqlite3"
    assert default_store_path({"HOME": home}, "linux") == expected_home
    assert default_store_path({"HOME": home, "XDG_DATA_HOME": "relative/dir"}, "linux") == expected_home
    assert default_store_path({"HOME": home, "LITSEARCH_CACHE_DIR": "  "}, "linux") == expected_home
    assert default_store_path({"HOME": home}, "darwin") == \
        Path(home) / "Library" / "Application Support" / "lit-search" / "lit-search.sqlite3"
    assert default_store_path({"LOCALAPPDATA": str(tmp_path / "local"), "HOME": home}, "win32") == \
        tmp_path / "local" / "lit-search" / "lit-search.sqlite3"


def test_default_path_is_used_when_none_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("LITSEARCH_CACHE_DIR", str(tmp_path / "cache"))
    with Store.open() as store:
        assert store.path == tmp_path / "cache" / DB_FILENAME
    assert (tmp_path / "cache" / DB_FILENAME).exists()
