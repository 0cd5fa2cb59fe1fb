"""Unpaywall HTTP flow: replayed from tests/cassettes/unpaywall, and checked against a mock
transport for the required email and the error answers."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from cassettes_support import cassette_vcr
from litsearch.net.http import HttpClient
from litsearch.net.pacing import PacePolicy
from litsearch.core.errors import ProviderError
from litsearch.providers import unpaywall
from litsearch.runtime.settings import settings_from_env

EMAIL_ENV = {"LITSEARCH_EMAIL": "test@example.org"}
NO_PACING = {"unpaywall": PacePolicy(min_interval=0, max_in_flight=5, retries=0)}


def lookup(doi: str, env=EMAIL_ENV, transport=None):
    async def main():
        async with HttpClient(settings_from_env(env), transport=transport, policies=NO_PACING) as http:
            return await unpaywall.get_open_access_url(http.session(unpaywall.NAME), doi)
    return asyncio.run(main())


def replay(doi: str):
    with cassette_vcr().use_cassette("unpaywall/open_access.yaml") as cassette:
        result = lookup(doi)
    assert cassette.play_count == 1
    return result


# ---------------------------------------------------------------- replayed flow

def test_publisher_pdf():
    assert replay("10.1073/pnas.1414271111") == {
        "doi": "10.1073/pnas.1414271111", "is_oa": True,
        "url": "https://www.pnas.org/doi/pdf/10.1073/pnas.1414271111", "is_pdf": True,
        "host_type": "publisher", "version": "publishedVersion", "license": None,
    }


def test_landing_page_only():
    result = replay("https://doi.org/10.1016/J.XGEN.2025.100814")  # any DOI form is accepted
    assert result["url"] == "https://doi.org/10.1016/j.xgen.2025.100814"
    assert (result["is_oa"], result["is_pdf"], result["license"]) == (True, False, "cc-by")


def test_closed_paper():
    result = replay("10.1023/a:1007154515475")  # the colon goes out percent-encoded
    assert (result["is_oa"], result["url"], result["is_pdf"]) == (False, None, None)


def test_unknown_doi_is_none():
    assert replay("10.5555/not.in.unpaywall") is None


# ---------------------------------------------------------------- what goes on the wire

def test_email_and_doi_path_on_the_wire():
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(200, json={"doi": "10.1038/nature12373", "is_oa": False, "best_oa_location": None})

    lookup("10.1038/NATURE12373", transport=httpx.MockTransport(handler))
    request = requests[0]
    assert (request.url.host, request.url.path) == ("api.unpaywall.org", "/v2/10.1038/nature12373")
    assert request.url.params["email"] == "test@example.org"


def test_without_an_email_nothing_is_sent():
    requests: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        requests.append(request)
        return httpx.Response(500)

    with pytest.raises(ProviderError) as caught:
        lookup("10.1038/nature12373", env={}, transport=httpx.MockTransport(handler))
    assert str(caught.value) == "Unpaywall needs LITSEARCH_EMAIL"
    assert requests == []


def test_422_raises_with_unpaywalls_message():
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(422, json={"HTTP_status_code": 422, "error": True,
                                         "message": "Please use your own email address in API calls."})

    with pytest.raises(ProviderError) as caught:
        lookup("10.1038/nature12373", transport=httpx.MockTransport(handler))
    assert str(caught.value) == ("Unpaywall rejected the request (HTTP 422): "
                                 "Please use your own email address in API calls.")


def test_malformed_doi_is_refused_before_sending():
    with pytest.raises(ProviderError, match="not a DOI"):
        lookup("nature12373", transport=httpx.MockTransport(lambda request: httpx.Response(500)))
