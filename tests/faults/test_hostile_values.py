"""Issue 11, through the real command against fake APIs that send what real APIs can send:
values that crashed the search (negative counts, impossible years, lone surrogates, one
malformed field, NaN scores, a batch answer of the wrong shape, bytes that are not UTF-8),
text that must not act on a terminal or the model (tag characters, bidi controls, escapes,
non-http links, e-mail autolinks, heading starts, a 1 MB word, 309-digit counts), and the
smaller faults (output paths checked before any request, honest empty results). Each test
names the defect number of the issue it covers."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

import fake_apis
from command import command_env, command_runner
from fake_server import Answer, FakeServer, SeenRequest
from render.test_output_properties import FORBIDDEN, MARKDOWN_FORBIDDEN

TOPIC = "CRISPR off-target effects"
DNA = "DNA targeting specificity of RNA-guided Cas9 nucleases"
BOTH = ["--providers", "semantic_scholar,openalex", "--no-verify"]


def s2_with(change):
    """The normal S2 answer with ``change(records)`` applied; a str result is sent as the raw body."""
    def responder(request: SeenRequest) -> Answer:
        payload = json.loads(fake_apis.s2_search(request).body)
        changed = change(payload.get("data", []))
        if isinstance(changed, str):
            return Answer(200, changed)
        payload["data"] = changed
        return Answer(200, json.dumps(payload))
    return responder


def openalex_with(change):
    def responder(request: SeenRequest) -> Answer:
        normal = fake_apis.openalex_works(request)
        payload = json.loads(normal.body)
        changed = change(payload.get("results", []))
        if isinstance(changed, str):
            return Answer(200, changed, headers=normal.headers)
        payload["results"] = changed
        return Answer(200, json.dumps(payload), headers=normal.headers)
    return responder


def first(records, **fields):
    records[0].update(fields)
    return records


@pytest.fixture
def world(tmp_path):
    """``start(routes)`` mounts the fake APIs with ``routes`` overridden and returns ``run``."""
    servers = []

    def start(routes: dict | None = None, in_process: bool = True, **env_extra: str):
        server = FakeServer().__enter__()
        servers.append(server)
        env = command_env(fake_apis.install(server, routes or {}), LITSEARCH_CACHE_DIR=str(tmp_path / "data"),
                          **env_extra)
        # In this process (tests/command.py): these values are about what the outputs hold, not
        # the process door; a process start costs a second or more on a loaded machine.
        run = command_runner(env, tmp_path, timeout=90, in_process=in_process)
        run.server = server
        return run

    yield start
    for server in servers:
        server.__exit__(None, None, None)


def results(proc) -> list[dict]:
    return json.loads(proc.stdout)["results"]


# ---------------------------------------------------------------- values that crashed (7-13, 19)

def test_7_negative_citation_counts_are_no_counts(world):
    run = world({"/s2/graph/v1/paper/search": s2_with(lambda r: first(r, citationCount=-5)),
                 "/openalex/works": openalex_with(lambda r: first(r, cited_by_count=-3))})
    for fmt in ("markdown", "json"):
        proc = run([TOPIC, *BOTH, "--format", fmt])
        assert "domain" not in proc.stderr
    assert all(r["citation_count"] is None or r["citation_count"] >= 0 for r in results(proc))


def test_8_impossible_years_and_an_integer_date_pass_the_date_filters(world):
    def odd(records):
        records[0].update(year=99999, publicationDate=20200101)
        records[1].update(year=-44)
        return records
    run = world({"/s2/graph/v1/paper/search": s2_with(odd)})
    for filters in (["--year", "2010-2024"], ["--since", "2012-01-01"], ["--until", "2030-12-31"]):
        proc = run([TOPIC, *BOTH, *filters, "--format", "json"])
        assert all(r["year"] is None or 1000 <= r["year"] <= 2200 for r in results(proc))


def test_9_a_lone_surrogate_survives_every_output_format_and_save(world, tmp_path):
    # json.dumps writes the lone surrogate as the escape \ud800, which is what the server sends.
    run = world({"/s2/graph/v1/paper/search": s2_with(lambda r: first(r, title="Broken \ud800 title"))})
    only_s2 = ["--providers", "semantic_scholar", "--no-verify"]
    for name in ("out.md", "out.json", "out.bib", "out.ris", "out.csl.json"):
        run([TOPIC, *only_s2, "-o", name])
        text = (tmp_path / name).read_bytes().decode("utf-8")  # strict: fails on a surrogate
        assert "Broken \ufffd title" in text
    run([TOPIC, *only_s2, "--save"])
    assert "Broken" in run(["library", "list"]).stdout
    run(["library", "export", "-o", "library.bib"])
    assert "Broken" in (tmp_path / "library.bib").read_text(encoding="utf-8")


@pytest.mark.parametrize("field,value", [
    ("citationCount", "1e999"),
    ("authors", '"Smith J, Doe A"'),
    ("journal", '"Nature"'),
    ("tldr", '"a string, not an object"'),
    ("openAccessPdf", '"https://example.org/x.pdf"'),
    ("externalIds", '["DOI", "10.1/x"]'),
    ("abstract", "[" * 10_000 + "]" * 10_000),
])
def test_10_one_malformed_field_costs_only_that_field_or_record(world, field, value):
    def raw(records):
        records[0][field] = "@@BAD@@"
        return json.dumps({"total": len(records), "offset": 0, "data": records}).replace('"@@BAD@@"', value)
    run = world({"/s2/graph/v1/paper/search": s2_with(raw)})
    proc = run([TOPIC, "--providers", "semantic_scholar", "--no-verify", "--format", "json"])
    payload = json.loads(proc.stdout)
    assert payload["errors"] == []
    titles = [r["title"] for r in payload["results"]]
    normal = json.loads(fake_apis.s2_search(SeenRequest(0, "GET", "/s2/graph/v1/paper/search",
                                                        {"query": [TOPIC]}, {}, b"")).body)["data"]
    kept = [p["title"] for p in normal[1:]]
    assert set(kept) <= set(titles)  # the rest of the answer is kept
    if normal[0]["title"] not in titles:  # the record itself was left out, and that is said
        assert any("left out" in warning for warning in payload.get("warnings", [])), payload.get("warnings")


@pytest.mark.parametrize("score", ["NaN", "Infinity", "-Infinity", "1e999"])
def test_11_non_finite_relevance_scores_keep_the_json_strict(world, score):
    def raw(records):
        records[0]["relevance_score"] = "@@S@@"
        return json.dumps({"meta": {"count": len(records)}, "results": records}).replace('"@@S@@"', score)
    run = world({"/openalex/works": openalex_with(raw)})
    proc = run([TOPIC, "--providers", "openalex", "--no-verify", "--format", "json"])
    json.loads(proc.stdout, parse_constant=lambda name: pytest.fail(f"{name} in the JSON output"))


def test_12_a_batch_answer_of_the_wrong_shape_costs_only_the_links(world):
    run = world({"/s2/graph/v1/paper/batch": [Answer(200, '{"error": "not a list"}')],
                 "/openalex/works": openalex_with(lambda r: [{**w, "referenced_works": "oops"} for w in r])})
    saved = run([TOPIC, *BOTH, "--save"])
    assert DNA in saved.stdout
    linked = run(["library", "link"])
    assert "Traceback" not in linked.stderr
    assert DNA in run(["library", "list"]).stdout


def test_13_bytes_that_are_not_utf8_in_the_arguments_are_replaced(world, tmp_path):
    run = world(in_process=False)  # argv bytes reach Python only through a process's own start
    proc = run([b"CRISPR off-target \xff\xfe effects", *BOTH, "--format", "json"])
    assert json.loads(proc.stdout)["query"] == "CRISPR off-target \ufffd\ufffd effects"
    run([b"CRISPR \xff", *BOTH, "-o", "out.bib"])
    (tmp_path / "out.bib").read_bytes().decode("utf-8")


def test_19_a_309_digit_count_is_no_count(world):
    def raw(records):
        records[0]["citationCount"] = "@@N@@"
        return json.dumps({"total": len(records), "offset": 0, "data": records}).replace('"@@N@@"', "1e308")
    run = world({"/s2/graph/v1/paper/search": s2_with(raw)})
    table = run([TOPIC, "--providers", "semantic_scholar", "--no-verify"]).stdout
    assert not re.search(r"\d{12,}", table)
    as_json = results(run([TOPIC, "--providers", "semantic_scholar", "--no-verify", "--format", "json"]))
    assert all(r["citation_count"] is None or r["citation_count"] < 10**9 for r in as_json)


# ---------------------------------------------------------------- unsafe text (14-18)

HIDDEN = "Evil\U000e0049\U000e0067\U000e006e title \u202eevil\u202c \u2066iso\u2069 \u061c\u2060\ufeff\u00adsoft zero\u200bwidth"
ESCAPES = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\\x9b31m"


def test_14_hidden_and_reordering_characters_reach_no_output(world, tmp_path):
    def hidden(records):
        return first(records, title=HIDDEN, venue=HIDDEN, journal={"name": HIDDEN},
                     authors=[{"authorId": "1", "name": HIDDEN}])
    run = world({"/s2/graph/v1/paper/search": s2_with(hidden), "/s2/graph/v1/paper/": s2_with_details(hidden)})
    outputs = {"markdown": run([TOPIC, *BOTH]).stdout}
    for fmt in ("json", "bibtex", "ris", "csl-json"):
        outputs[fmt] = run([TOPIC, *BOTH, "--format", fmt]).stdout
    outputs["paper"] = run(["paper", "10.1038/nbt.2647"]).stdout
    run([TOPIC, *BOTH, "--save"])
    outputs["library"] = run(["library", "list"]).stdout
    for name, text in outputs.items():
        assert not FORBIDDEN.search(text), (name, [hex(ord(c)) for c in FORBIDDEN.findall(text)])
    for name in ("markdown", "paper", "library"):
        assert not MARKDOWN_FORBIDDEN.search(outputs[name]), name
    assert "Evil title" in outputs["markdown"] or "Evil" in outputs["markdown"]


def s2_with_details(change):
    def responder(request: SeenRequest) -> Answer:
        normal = fake_apis.s2_paper_details(request)
        if normal.status != 200:
            return normal
        return Answer(200, json.dumps(change([json.loads(normal.body)])[0]))
    return responder


def test_15_terminal_escapes_from_an_api_never_reach_the_terminal(world):
    run = world({"/s2/graph/v1/paper/search": [Answer(400, f"Bad request {ESCAPES}", content_type="text/plain")],
                 "/openalex/authors": lambda request: Answer(200, json.dumps({"results": [
                     {"id": "https://openalex.org/A1", "display_name": f"Ada {ESCAPES}", "works_count": 3}]})),
                 "/openalex/works": openalex_with(lambda r: [{**w, "primary_location": {"source": {
                     "display_name": f"Venue {ESCAPES}"}}} for w in r])},
                OPENALEX_API_KEY="k")
    proc = run([TOPIC, *BOTH, "--author", "Ada"])
    bib = run([TOPIC, *BOTH, "--format", "bibtex"])
    ris = run([TOPIC, *BOTH, "--format", "ris"])
    for text in (proc.stderr, proc.stdout, bib.stdout, ris.stdout, bib.stderr):
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
    assert "semantic_scholar" in proc.stderr or "semantic_scholar: failed" in proc.stdout


def test_16_only_http_links_reach_url_fields(world):
    run = world({"/s2/graph/v1/paper/search": s2_with(lambda r: first(
                     r, openAccessPdf={"url": "javascript:alert(1)", "status": "GREEN"},
                     url="vbscript:msgbox")),
                 "/openalex/works": openalex_with(lambda r: [{**w, "best_oa_location": {"pdf_url": "data:text/html,x"},
                                                              "open_access": {"oa_url": "javascript:x"}} for w in r])})
    texts = [run([TOPIC, *BOTH, "--format", fmt]).stdout for fmt in ("markdown", "json", "bibtex", "ris", "csl-json")]
    for text in texts:
        assert not re.search(r"(javascript|vbscript|data):", text, re.I)
    for result in json.loads(texts[1])["results"]:
        assert result["oa_url"] is None or result["oa_url"].startswith("http")


def test_17_and_18_abstracts_stay_quoted_plain_and_short(world):
    abstract = "### Not a heading\n\nWrite to someone@example.org now. " + "x" * 1_000_000
    run = world({"/s2/graph/v1/paper/search": s2_with(lambda r: first(r, abstract=abstract, title="W" * 100_000))})
    table = run([TOPIC, "--providers", "semantic_scholar", "--no-verify"]).stdout
    assert len(table) < 60_000
    quoted = [line for line in table.splitlines() if "someone" in line]
    assert quoted and all(line.startswith(">") for line in quoted)
    assert "someone@example.org" not in table  # no live autolink
    assert not any(re.match(r">\s*#", line) for line in table.splitlines())
    assert "…" in table  # the 100 KB title is cut with an ellipsis


# ---------------------------------------------------------------- smaller faults

@pytest.mark.parametrize("args,message", [
    (["-o", "nodir/"], "folder"),
    (["-o", "out.docx"], ".bib"),
    (["-o", "refs.bib", "--format", "ris"], "ris"),
    (["-o", "/nonexistent/dir/refs.bib"], "nonexistent"),
])
def test_output_paths_are_checked_before_any_request(world, tmp_path, args, message):
    run = world()
    proc = run([TOPIC, *BOTH, *args], code=None)
    assert proc.returncode == 2 and message in proc.stderr.lower(), proc.stderr
    assert proc.stderr.count("\n") <= 2
    assert run.server.requests == []
    assert not (tmp_path / "nodir").exists() and not list(tmp_path.glob("out.*"))


def test_nothing_searched_is_not_reported_as_no_papers_found(world):
    down = [Answer(503, "down")]
    run = world({"/s2/graph/v1/paper/search": down, "/openalex/works": down}, LITSEARCH_BACKOFF="0.01")
    proc = run([TOPIC, *BOTH], code=None)
    assert proc.returncode == 3
    assert "No papers found" not in proc.stdout
    offline = world()([f"{TOPIC} never searched", *BOTH, "--offline"], code=None)
    assert "No papers found" not in offline.stdout


def test_web_sources_are_one_per_line(world):
    run = world(TAVILY_API_KEY="t")
    table = run([TOPIC, "--providers", "openalex,web", "--no-verify"]).stdout
    section = table.split("Web sources", 1)[1]
    items = [line for line in section.splitlines() if line.startswith(("- ", "1.", "2."))]
    assert len(items) >= 2, section[:500]


def test_one_deadline_covers_search_and_enrichment(world):
    slow = [Answer(200, "{}", delay=25)]
    # OpenAlex answers 2 s before the budget ends (a margin a loaded machine needs: at 2.5 s of a
    # 3 s budget, a slow start made the answer itself too late).
    late_openalex = lambda request: dataclasses.replace(fake_apis.openalex_works(request), delay=4.0)  # noqa: E731
    run = world({"/openalex/works": late_openalex, "/crossref/works": slow, "/unpaywall/v2/": slow},
                LITSEARCH_PROVIDER_BUDGET="6", LITSEARCH_EMAIL="a@example.org")
    proc = run([TOPIC, "--providers", "openalex"])
    assert DNA in proc.stdout
    # One deadline for the whole search, budget + 2 s (README, "When things go wrong"): the
    # search took 4 s of it and enrichment gets what is left, not a budget of its own
    # (which would end at 4 + 6 + 2 = 12 s). The footer's time is the search's own, so
    # a loaded machine's slow start-up does not count.
    seconds = float(re.search(r"requests? in ([0-9.]+) s", proc.stdout).group(1))
    assert seconds <= 6 + 2 + 1.5, seconds
    assert "could not be checked" in proc.stdout
