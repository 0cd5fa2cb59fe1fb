"""Fault families for `lit-search read`, in the style of the search's: every full-text source
(NCBI efetch db=pmc, Europe PMC, arXiv HTML, a publisher host named by Unpaywall, Unpaywall
itself) × every fault (5xx, hang, cut body, corrupt gzip, an HTML page or invalid XML/JSON with
status 200, a redirect loop, a redirect to another origin, a body over the size cap).

The contract for every scenario (``check``): the documented exit code (0 when another copy
could still be read, 3 when a source failed and nothing was read, 5 only when every source said
"no open copy"); no traceback; nothing on stdout but the text; one error line naming the source
and what went wrong; the run ends within its time budget; no key or contact email reaches
another origin. The real entry point runs in-process with short timeouts (fault_support)."""

from __future__ import annotations

import gzip
import json

import httpx
import pytest
from fault_support import HANG, run_cli

import fake_fulltext
from fake_server import Answer, FakeServer
from litsearch.fulltext import fetchers, read
from litsearch.net.pacing import PacePolicy
from scratch import scratch_folder  # noqa: E402

NCBI_KEY = "ncbi-sentinel-key-7Q2"
EMAIL = "sentinel.reader@example.org"
BOUND_SECONDS = 9.0


def quiet(fake: FakeServer) -> FakeServer:
    # A client that stops reading (a body over the cap) makes the server's write fail; that is
    # the point of the test, not news for stderr, which the contract reads.
    fake._httpd.handle_error = lambda request, address: None
    return fake


@pytest.fixture
def server():
    with FakeServer() as fake:
        yield quiet(fake)


@pytest.fixture
def other_origin():
    """A second server: a redirect there must arrive without the key or the email."""
    with FakeServer() as fake:
        fake.route("/", lambda request: Answer(404, "elsewhere", content_type="text/plain"))
        yield quiet(fake)


@pytest.fixture(autouse=True)
def fast_sources(monkeypatch):
    # arXiv's 3 s and publishers' 1 s pace would only make the matrix slow.
    monkeypatch.setitem(fetchers.PACES, fetchers.ARXIV_WEB, PacePolicy(0.0, 1))
    monkeypatch.setitem(fetchers.PACES, fetchers.OPEN_ACCESS, PacePolicy(0.0, 2))


def ncbi_only(answer):
    """A fault on efetch db=pmc; PubMed's own efetch stays healthy."""
    healthy = fake_fulltext.ncbi_efetch(fake_fulltext.fake_apis.pubmed_efetch)

    def responder(request):
        return answer if request.param("db") == "pmc" else healthy(request)
    return responder


# (route, paper read, what the fault leaves: the exit code and words in the message)
SOURCES = {
    "pmc": ("/eutils/efetch.fcgi", "PMC3299399", "PubMed Central"),
    "europepmc": ("/europepmc/", "PMC13173394", "Europe PMC"),
    "arxiv_html": ("/arxiv-web/", "arXiv:2302.00001", "arXiv (HTML)"),
    "publisher": ("/oa/", "10.7717/fake.pdfonly", "open-access copy"),
    "unpaywall": ("/unpaywall/v2/", "10.7717/fake.pdfonly", "Unpaywall"),
}


def faults(other_url: str, route: str = "/oa/") -> dict[str, Answer]:
    # the loop's target is the faulted route itself (efetch keeps db=pmc), so it redirects again
    loop = route + ("?db=pmc&again=1" if route.endswith(".fcgi") else "again/x")
    return {
        "server error": Answer(503, "Service Unavailable", content_type="text/plain"),
        "hang": Answer(hang=True),
        "cut body": Answer(200, "<article>" + "<p>x</p>" * 4000, content_type="application/xml", cut_body=True),
        "corrupt gzip": Answer(200, b"\x1f\x8b\x08\x00 this is not gzip", content_type="application/xml",
                               headers={"Content-Encoding": "gzip"}),
        "html page with status 200": Answer(200, "<html><body><h1>Maintenance</h1></body></html>",
                                            content_type="text/html"),
        "invalid xml or json": Answer(200, "<article><body><p>never closed", content_type="application/json"),
        "redirect loop": Answer(302, "", headers={"Location": loop}),
        "redirect to another origin": Answer(302, "", headers={"Location": other_url + "/stolen"}),
    }


def check(run, code: int, words: list[str]) -> None:
    assert "Traceback" not in run.stderr and "Traceback" not in run.stdout
    assert run.exit_code == code, run.stderr
    assert run.seconds < BOUND_SECONDS, f"took {run.seconds:.1f} s"
    if code:
        assert run.stdout == ""
        errors = [line for line in run.stderr.splitlines() if line.startswith("lit-search read:")]
        assert len(errors) == 1 and len(errors[0]) < 2000, run.stderr
        for word in words:
            assert word in errors[0], errors[0]
    assert NCBI_KEY not in run.stderr + run.stdout


def read_with(monkeypatch, capsys, server, route, answer, paper):
    env = fake_fulltext.install(server, {route: ncbi_only(answer) if route.startswith("/eutils") else
                                         (lambda request: answer)})
    env.update({"LITSEARCH_CACHE_DIR": scratch_folder(prefix="litsearch-read-fault-"), "NCBI_API_KEY": NCBI_KEY,
                "LITSEARCH_EMAIL": EMAIL, "LITSEARCH_PROVIDER_BUDGET": "4", **HANG})
    return run_cli(monkeypatch, capsys, env, ["read", paper, "--max-chars", "2000"])


@pytest.mark.parametrize("source", list(SOURCES))
@pytest.mark.parametrize("fault", ["server error", "hang", "cut body", "corrupt gzip", "html page with status 200",
                                   "invalid xml or json", "redirect loop", "redirect to another origin"])
def test_read_fault_matrix(source, fault, server, other_origin, monkeypatch, capsys, shared):
    if source in ("pmc", "europepmc", "arxiv_html"):
        shared("fulltext/pmc/" if source != "arxiv_html" else "fulltext/arxiv_html/")
    route, paper, name = SOURCES[source]
    answer = faults(other_origin.url, route)[fault]
    run = read_with(monkeypatch, capsys, server, route, answer, paper)
    if fault == "redirect to another origin" and source in ("pmc", "europepmc", "unpaywall"):
        # an API that redirects is not followed: its requests carry the key and the email
        check(run, 3, ["could not read", name, "HTTP 302"])
        assert other_origin.requests == []
    elif fault == "redirect to another origin":
        # a copy may move to another host, but this one is this machine (127.0.0.1) and no
        # configured API: not asked at all (test_a_copy_moved_to_a_public_host_is_followed_anonymously)
        check(run, 3, ["could not read", name, "is a private or local address (127.0.0.1)"])
        assert other_origin.requests == []
    elif source == "arxiv_html" and fault != "html page with status 200":
        # the whole arXiv host misbehaves: HTML and PDF both fail
        check(run, 3, ["could not read arXiv 2302.00001", name])
    elif source == "arxiv_html":
        check(run, 3, ["arXiv (HTML): the page is not a LaTeXML rendering"])
    elif source == "publisher" and fault in ("html page with status 200", "invalid xml or json"):
        # a page where the PDF should be (a login wall): that copy is not open
        check(run, 5, ["no open copy of DOI 10.7717/fake.pdfonly could be read", "not the PDF"])
    else:
        check(run, 3, [f"could not read", name])
    for request in other_origin.requests:  # a redirect there carried nothing of ours
        assert NCBI_KEY not in request.raw_query and EMAIL not in request.raw_query
        assert EMAIL not in request.headers.get("user-agent", "")
        assert NCBI_KEY not in str(request.headers)


@pytest.mark.parametrize("source", ["arxiv_html", "publisher"])
def test_a_copy_moved_to_a_public_host_is_followed_anonymously(source, server, other_origin, monkeypatch, capsys,
                                                               shared):
    """The second server stands for a public host (the address check is told so): the redirect
    is followed, carrying no key, no email and no cookie; nothing readable is there."""
    from litsearch.net import http

    async def everything_public(url):
        return None
    monkeypatch.setattr(http, "local_address_of", everything_public)
    if source == "arxiv_html":
        shared("fulltext/arxiv_html/")
    route, paper, name = SOURCES[source]
    run = read_with(monkeypatch, capsys, server, route, faults(other_origin.url, route)["redirect to another origin"],
                    paper)
    check(run, 5, ["no open copy of", name])
    assert [request.path for request in other_origin.requests][:1] == ["/stolen"]
    for request in other_origin.requests:
        assert NCBI_KEY not in request.raw_query and EMAIL not in request.raw_query
        assert EMAIL not in request.headers.get("user-agent", "")
        assert not {name.lower() for name in request.headers} & {"cookie", "authorization", "x-api-key"}


@pytest.mark.parametrize("fault", ["server error", "hang", "corrupt gzip", "redirect loop"])
def test_a_failing_source_leaves_the_next_copy(fault, server, other_origin, monkeypatch, capsys, shared):
    """NCBI fails; Europe PMC has the same article: the text is read, the failure is a note."""
    shared("fulltext/pmc/")
    answer = faults(other_origin.url, "/eutils/efetch.fcgi")[fault]
    run = read_with(monkeypatch, capsys, server, "/eutils/efetch.fcgi", answer, "PMC13173394")
    check(run, 0, [])
    assert run.stdout.startswith("# Liquid Atmospheric Pressure MALDI")
    assert "note: PubMed Central:" in run.stderr


def test_a_failure_once_is_retried(server, monkeypatch, capsys, shared):
    shared("fulltext/pmc/")
    env = fake_fulltext.install(server)
    env["/unused"] = ""
    healthy = fake_fulltext.ncbi_efetch(fake_fulltext.fake_apis.pubmed_efetch)
    answers = [Answer(503, "busy", content_type="text/plain")]

    def once(request):
        return answers.pop() if answers and request.param("db") == "pmc" else healthy(request)
    server.route("/eutils/efetch.fcgi", once)
    env = {k: v for k, v in env.items() if k.startswith("LITSEARCH_")}
    env["LITSEARCH_CACHE_DIR"] = scratch_folder(prefix="litsearch-read-fault-")
    run = run_cli(monkeypatch, capsys, env, ["read", "PMC3299399", "--section", "abstract"])
    check(run, 0, [])
    assert "## 1 Abstract" in run.stdout and "note:" not in run.stderr


def test_a_body_over_the_cap_is_not_read(server, monkeypatch, capsys):
    monkeypatch.setattr(read, "DOCUMENT_MAX_BYTES", 200_000)
    huge = Answer(200, b"%PDF-1.4\n" + b"0" * 300_000, content_type="application/pdf")
    run = read_with(monkeypatch, capsys, server, "/oa/", huge, "10.7717/fake.pdfonly")
    check(run, 3, ["exceeds the 200,000-byte cap"])


def test_a_gzip_bomb_stops_at_the_cap(server, monkeypatch, capsys):
    monkeypatch.setattr(read, "DOCUMENT_MAX_BYTES", 1_000_000)
    bomb = gzip.compress(b"%PDF-1.4\n" + b"\0" * 50_000_000)  # 50 MB of zeros in about 50 KB
    answer = Answer(200, bomb, content_type="application/pdf", headers={"Content-Encoding": "gzip"})
    run = read_with(monkeypatch, capsys, server, "/oa/", answer, "10.7717/fake.pdfonly")
    check(run, 3, ["exceeds the 1,000,000-byte cap"])


def test_a_pdf_that_keeps_the_parser_busy_costs_its_budget(server, monkeypatch, capsys):
    """pypdf reading a page of tiny operators for minutes: stopped at the budget, its process
    killed (nothing left running once the command has failed): gone before it has used more CPU
    seconds than its budget (4 s), where its own limit (budget + 2) would have stopped it."""
    from litsearch.fulltext import isolated
    from pdf_maker import busy_pdf
    from process_watch import HAS_PROC, watch_until_gone

    children: list[int] = []
    monkeypatch.setattr(isolated, "_started", children.append)
    busy = Answer(200, busy_pdf(), content_type="application/pdf")
    run = read_with(monkeypatch, capsys, server, "/oa/", busy, "10.7717/fake.pdfonly")
    check(run, 3, ["reading the PDF's text took longer than"])
    assert children
    if HAS_PROC:
        assert all(watch_until_gone(child) < 4.5 for child in children)


def test_unpaywall_answering_404_means_no_open_copy(server, monkeypatch, capsys):
    run = read_with(monkeypatch, capsys, server, "/unpaywall/v2/", Answer(404, '{"error": true}'),
                    "10.7717/fake.pdfonly")
    check(run, 5, ["no open copy of DOI 10.7717/fake.pdfonly is known", "Unpaywall does not know"])


# Where a third party may point a copy on this machine: the user's Zotero (its origin set in the
# environment, or Zotero desktop's built-in one) and the same host spelled as IPv6 forms that
# carry 127.0.0.1 and as a resolver's number forms.
LOCAL_TARGETS = {
    "zotero, its URL set by the user": lambda port: f"http://127.0.0.1:{port}",
    "zotero desktop's built-in address": lambda port: "http://127.0.0.1:23119",
    "localhost": lambda port: f"http://localhost:{port}",
    "IPv4-mapped": lambda port: f"http://[::ffff:127.0.0.1]:{port}",
    "NAT64": lambda port: f"http://[64:ff9b::7f00:1]:{port}",
    "6to4": lambda port: f"http://[2002:7f00:1::]:{port}",
    "IPv4-compatible": lambda port: f"http://[::127.0.0.1]:{port}",
    "one number": lambda port: f"http://2130706433:{port}",
}


@pytest.mark.parametrize("target", list(LOCAL_TARGETS))
@pytest.mark.parametrize("named", ["url_for_pdf", "url_for_landing_page"])
def test_unpaywall_naming_a_host_on_this_machine_is_refused(named, target, server, other_origin, monkeypatch, capsys):
    """Zotero 7 serves the user's whole library on its local port. Unpaywall's answer naming it
    is a third party's word: even with LITSEARCH_ZOTERO_CONNECTOR_URL set (the user's origin for
    Zotero, not for open copies), nothing is asked there and nothing of it is printed."""
    zotero = other_origin
    zotero.route("/api/", lambda request: Answer(200, "SECRET LIBRARY ITEM", content_type="text/plain"))
    origin = LOCAL_TARGETS[target](httpx.URL(zotero.url).port)
    location = {"url_for_pdf": None, "url_for_landing_page": None, named: origin + "/api/users/0/items",
                "host_type": "publisher"}
    answer = Answer(200, json.dumps({"doi": "10.7717/fake.pdfonly", "is_oa": True, "best_oa_location": location,
                                     "oa_locations": [location]}))
    if target != "zotero desktop's built-in address":
        monkeypatch.setenv("LITSEARCH_ZOTERO_CONNECTOR_URL", zotero.url)
    run = read_with(monkeypatch, capsys, server, "/unpaywall/v2/", answer, "10.7717/fake.pdfonly")
    check(run, 3, ["is a private or local address"])
    assert zotero.requests == [] and "SECRET" not in run.stdout + run.stderr
