"""net/redirects.py in process: which hop a redirect asks for (next_request), which origins are
the same (allowed, same_origin_as_any) and what a message may show of an address."""

from __future__ import annotations

import httpx
import pytest

from litsearch.net.redirects import (
    REDIRECT_STATUSES,
    RedirectRefused,
    allowed,
    next_request,
    same_origin_as_any,
    shown_origin,
)

API = "https://api.example.org/v1/search?q=x&api_key=k3y"
AGENT = "lit-search/0 (+https://example.org)"


def answer(status: int, location: str | None, url: str = API, method: str = "GET") -> httpx.Response:
    headers = {"location": location} if location is not None else {}
    return httpx.Response(status, headers=headers, request=httpx.Request(method, url))


def hop(status, location, method="GET", kwargs=None, hops=0, agent=None, url=API):
    return next_request(answer(status, location, url, method), method, dict(kwargs or {}), hops, agent)


def test_a_same_origin_redirect_keeps_method_headers_and_body_but_not_the_parameters():
    kwargs = {"params": {"q": "x"}, "headers": {"x-api-key": "k"}, "json": {"a": 1}, "timeout": 3}
    assert hop(307, "/v2/search?q=x", "POST", kwargs) == \
        ("POST", "https://api.example.org/v2/search?q=x",
         {"headers": {"x-api-key": "k"}, "json": {"a": 1}, "timeout": 3})
    assert hop(308, "https://api.example.org:443/v3", "PUT", {"content": b"z"}) == \
        ("PUT", "https://api.example.org/v3", {"content": b"z"})  # the default port is the same origin


@pytest.mark.parametrize("status,method,after", [
    (303, "POST", "GET"), (303, "GET", "GET"), (301, "POST", "GET"), (302, "POST", "GET"),
    (301, "GET", "GET"), (302, "PUT", "PUT"), (307, "POST", "POST"), (308, "POST", "POST"),
])
def test_which_redirects_become_a_get_without_the_body(status, method, after):
    kwargs = {"json": {"a": 1}, "data": {"b": 2}, "content": b"c", "files": {"f": b"d"}, "headers": {"h": "v"}}
    new_method, _, following = hop(status, "/next", method, kwargs)
    assert new_method == after
    bodies = {name for name in ("json", "data", "content", "files") if name in following}
    assert bodies == (set() if after == "GET" and (status == 303 or method == "POST") else
                      {"json", "data", "content", "files"})
    assert following["headers"] == {"h": "v"}


def test_http_to_https_on_the_same_host_is_followed_only_on_the_default_ports():
    assert hop(301, "https://api.example.org/x", url="http://api.example.org/y")[1] == "https://api.example.org/x"
    for source, target in (("http://api.example.org:8080/y", "https://api.example.org/x"),
                           ("http://api.example.org/y", "https://api.example.org:8443/x"),
                           ("https://api.example.org/y", "http://api.example.org/x"),
                           ("http://api.example.org/y", "https://www.example.org/x")):
        with pytest.raises(RedirectRefused, match="redirected to another host"):
            hop(302, target, url=source)


def test_another_origin_is_refused_naming_only_its_origin():
    with pytest.raises(RedirectRefused) as refused:
        hop(302, "https://user:pw@evil.example:8443/steal?api_key=k3y")
    message = str(refused.value)
    assert message.startswith("redirected to another host (https://evil.example:8443); not followed")
    assert "k3y" not in message and "pw" not in message and "steal" not in message


def test_another_origin_is_followed_anonymously_when_asked():
    kwargs = {"headers": {"Authorization": "Bearer t", "X-API-Key": "k", "Cookie": "c", "Zotero-API-Key": "z",
                          "User-Agent": "lit-search (me@example.org)", "Accept": "application/pdf"},
              "params": {"mailto": "me@example.org"}}
    method, url, following = hop(302, "https://cdn.example.net/paper.pdf", kwargs=kwargs, agent=AGENT)
    assert (method, url) == ("GET", "https://cdn.example.net/paper.pdf")
    assert following == {"headers": {"Accept": "application/pdf", "User-Agent": AGENT}}
    same = hop(302, "/moved", kwargs=kwargs, agent=AGENT)[2]
    assert same["headers"] == kwargs["headers"]  # the same origin keeps what it was sent


@pytest.mark.parametrize("spelling", ["User-Agent", "user-agent", "USER-AGENT"])
def test_an_anonymous_hop_sends_one_user_agent_whatever_the_spelling_of_the_first(spelling):
    """The contact email in the first request's User-Agent never reaches the other host, and the
    anonymous agent is the only one sent."""
    kwargs = {"headers": {spelling: "lit-search (me@example.org)", "x-api-key": "k", "Accept": "text/html"}}
    following = hop(301, "https://publisher.example/article", kwargs=kwargs, agent=AGENT)[2]
    assert following["headers"] == {"Accept": "text/html", "User-Agent": AGENT}
    assert "me@example.org" not in repr(following)


def test_the_hop_count_is_bounded():
    # Five hops are followed, as browsers' and httpx's loops allow at least that many; the sixth is
    # refused, with the count in its message.
    for hops in range(5):
        assert hop(302, "/again", hops=hops)[1] == "https://api.example.org/again"
    for hops in (5, 6):
        with pytest.raises(RedirectRefused) as refused:
            hop(302, "/again", hops=hops)
        assert str(refused.value) == "more than 5 redirects (a redirect loop?); gave up"


@pytest.mark.parametrize("location,words", [
    (None, "HTTP 302 redirect without a Location"), ("   ", "HTTP 302 redirect without a Location"),
    ("ftp://api.example.org/file", "HTTP 302 redirect to a non-HTTP address; not followed"),
    ("javascript:alert(1)", "HTTP 302 redirect to a non-HTTP address; not followed"),
    ("https://[::1", "HTTP 302 redirect to an invalid address"),
])
def test_a_location_that_cannot_be_followed(location, words):
    with pytest.raises(RedirectRefused) as refused:
        hop(302, location)
    assert str(refused.value) == words


def test_a_relative_location_resolves_against_the_request():
    assert hop(301, "other?page=2")[1] == "https://api.example.org/v1/other?page=2"
    assert hop(301, "  //api.example.org/z  ")[1] == "https://api.example.org/z"


def test_origins():
    url = httpx.URL
    assert allowed(url("https://a.org/x"), url("https://a.org:443/y"))
    assert not allowed(url("https://a.org/x"), url("https://b.org/x"))
    assert not allowed(url("https://a.org:444/x"), url("https://a.org/x"))
    assert same_origin_as_any(url("https://a.org/x"), ["not a url \x00", "https://b.org", "https://a.org/base"])
    assert not same_origin_as_any(url("https://a.org/x"), ["http://a.org", "https://a.org:8443"])
    assert not same_origin_as_any(url("https://a.org/x"), [])
    assert shown_origin(url("https://u:p@a.org:8443/p?q=1")) == "https://a.org:8443"
    assert shown_origin(url("https://a.org/p")) == "https://a.org"
    assert shown_origin(url("https://" + "h" * 150 + ".org/")) == "https://" + "h" * 100
    assert REDIRECT_STATUSES == {301, 302, 303, 307, 308}
