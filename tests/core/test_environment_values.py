"""Every environment value lit-search reads, checked once (core/environment.py): contact emails
(internationalised ones included), API keys, proxy URLs and the secrets inside them, with the
exact one-line message for each problem and never the value itself. Written to kill the
mutants of core/environment.py (bench/mutation.py)."""

from __future__ import annotations

import pytest

from litsearch.core.environment import (
    EnvironmentProblem, check_email, check_key, check_proxy, contact_email, email_uri, excerpt, idna_domain,
    problems, proxy_secrets, proxy_settings, shown_proxy,
)
from litsearch.core.config import key_variables
from litsearch.providers.registry import services

# The key variables as the services declare them (environment.problems is told them).
KEY_VARIABLES = key_variables(services())

NOT_AN_ADDRESS = "is not an email address (expected name@example.org, no spaces)"
BAD_KEY = "holds characters an API key never has (non-ASCII or control characters); copy the key again"
NOT_A_PROXY = "is not a proxy address (expected http://host:port)"


def problem_of(check, value: str, variable: str = "VARIABLE") -> str:
    with pytest.raises(EnvironmentProblem) as caught:
        check(variable, value)
    assert caught.value.variable == variable
    return str(caught.value)


# --- contact emails -------------------------------------------------------------------

def test_the_first_email_variable_set_wins():
    assert contact_email({"OPENALEX_EMAIL": "b@x.org", "UNPAYWALL_EMAIL": "c@x.org"}) == ("OPENALEX_EMAIL", "b@x.org")
    assert contact_email({"LITSEARCH_EMAIL": "  ", "UNPAYWALL_EMAIL": " c@x.org "}) == ("UNPAYWALL_EMAIL", "c@x.org")
    assert contact_email({"LITSEARCH_EMAIL": "a@x.org", "OPENALEX_EMAIL": "b@x.org"}) == ("LITSEARCH_EMAIL", "a@x.org")
    assert contact_email({}) == (None, None)


@pytest.mark.parametrize("address", [
    "jane.doe@uni-heidelberg.de", "jürgen.müller@uni-köln.de", "o'brien+lit@example.co.uk", "a@b",
    "x" * 64 + "@" + "d" * 63 + "." + "e" * 63 + "." + "f" * 57,  # 249 characters, a valid host name
])
def test_valid_addresses(address):
    assert check_email("LITSEARCH_EMAIL", address) == address


@pytest.mark.parametrize("address,message", [
    ("jane@example.org\r\nX-Injected: 1", "contains a line break or control character; give one email address"),
    ("jane@example.org\x00", "contains a line break or control character; give one email address"),
    ("jane@example.org\x85", "contains a line break or control character; give one email address"),
    ("jane@example.org\u2028", "contains a line break or control character; give one email address"),
    ("jane@example.org\x7f", "contains a line break or control character; give one email address"),
    ("x" * 250 + "@a.de", "is 255 characters long; an email address is at most 254"),
    ("jane.example.org", NOT_AN_ADDRESS), ("@example.org", NOT_AN_ADDRESS), ("jane@", NOT_AN_ADDRESS),
    ("jane doe@example.org", NOT_AN_ADDRESS), ("jane@exa mple.org", NOT_AN_ADDRESS),
    ("jane@example.org, joe@example.org", NOT_AN_ADDRESS),
    ("jane@" + "a" * 64 + ".org", "has a domain that is not a valid host name"),
    ("jane@exa..mple.org", "has a domain that is not a valid host name"),
])
def test_invalid_addresses(address, message):
    assert problem_of(check_email, address, "UNPAYWALL_EMAIL") == f"UNPAYWALL_EMAIL {message}"


def test_an_address_of_exactly_254_characters_is_accepted():
    address = "x" * 64 + "@" + "d" * 63 + "." + "e" * 63 + "." + "f" * 61
    assert len(address) == 254
    assert check_email("LITSEARCH_EMAIL", address) == address


def test_internationalised_addresses_are_encoded_for_a_mailto_uri():
    assert idna_domain("uni-köln.de") == "xn--uni-kln-e1a.de"  # as the idna package spells it too
    assert idna_domain("example.org") == "example.org"
    assert email_uri("jürgen.müller@uni-köln.de") == "j%C3%BCrgen.m%C3%BCller@xn--uni-kln-e1a.de"
    assert email_uri("o'brien+lit!{x}~@example.org") == "o'brien+lit!{x}~@example.org"
    assert email_uri("a b@example.org") == "a%20b@example.org"
    assert email_uri("\"x@y\"@example.org") == "%22x%40y%22@example.org"  # the last @ separates


# --- API keys --------------------------------------------------------------------------

@pytest.mark.parametrize("key", ["Zq8RmT3vWx0kLp5sNb7YcUe2HfGj4DaA9oIiVt1E", "tvly-dev-AbC123", "a b~!", "k" * 512])
def test_valid_keys(key):
    assert check_key("SEMANTIC_SCHOLAR_API_KEY", key) == key


@pytest.mark.parametrize("key", ["clé-api", "key\n", "key\x00", "key\x7f", "k" * 513, ""])
def test_keys_that_cannot_be_sent(key):
    assert problem_of(check_key, key, "NCBI_API_KEY") == f"NCBI_API_KEY {BAD_KEY}"
    assert key not in BAD_KEY or not key


# --- proxies ----------------------------------------------------------------------------

def test_proxy_variables_in_both_cases_upper_first():
    env = {"https_proxy": "http://b:1", "HTTPS_PROXY": "http://a:1", "ALL_PROXY": " socks5://c:1 ", "http_proxy": " ",
           "NO_PROXY": "localhost"}
    assert list(proxy_settings(env).items()) == [("HTTPS_PROXY", "http://a:1"), ("https_proxy", "http://b:1"),
                                                 ("ALL_PROXY", "socks5://c:1")]
    assert proxy_settings({}) == {}


@pytest.mark.parametrize("value,url", [
    ("http://proxy.example:3128", "http://proxy.example:3128"),
    ("proxy.example:3128", "http://proxy.example:3128"),
    ("user:pw@proxy.example:3128", "http://user:pw@proxy.example:3128"),
    ("HTTPS://proxy.example", "HTTPS://proxy.example"),
    ("socks5://127.0.0.1:1080", "socks5://127.0.0.1:1080"),
    ("socks5h://proxy:1", "socks5h://proxy:1"),
    ("http://proxy:65535", "http://proxy:65535"),
    ("http://[::1]:8080", "http://[::1]:8080"),
])
def test_valid_proxies(value, url):
    assert check_proxy("HTTPS_PROXY", value) == url


@pytest.mark.parametrize("value,reason", [
    ("http://proxy example:3128", ": it contains spaces or control characters"),
    ("http://proxy:3128\n", ": it contains spaces or control characters"),
    ("http://proxy\x00:3128", ": it contains spaces or control characters"),
    ("http://proxy:99999", ": its port is not a number from 1 to 65535"),
    ("http://proxy:port", ": its port is not a number from 1 to 65535"),
    ("http://proxy:0", ": its port is not a number from 1 to 65535"),
    ("ftp://proxy:21", ": the scheme must be one of http, https, socks5, socks5h"),
    ("socks4://proxy:1080", ": the scheme must be one of http, https, socks5, socks5h"),
    ("http://:3128", ": it names no host"),
    ("http://user:secretpw@:3128", ": it names no host"),
])
def test_invalid_proxies_never_quote_the_value(value, reason):
    message = problem_of(check_proxy, value, "HTTP_PROXY")
    assert message == f"HTTP_PROXY {NOT_A_PROXY}{reason}"


@pytest.mark.parametrize("env,secrets", [
    ({"HTTPS_PROXY": "http://alice:s3cr%40t@proxy:3128"}, ["alice", "alice", "s3cr%40t", "s3cr@t"]),
    ({"HTTPS_PROXY": "alice:pw1234@proxy:3128"}, ["alice", "alice", "pw1234", "pw1234"]),  # scheme-less
    ({"http_proxy": "http://:onlypw@proxy:1"}, ["onlypw", "onlypw"]),
    ({"ALL_PROXY": "http://onlyuser@proxy:1"}, ["onlyuser", "onlyuser"]),
    ({"HTTPS_PROXY": "http://a:b:c@proxy:1/path@x"}, ["a", "a", "b:c", "b:c"]),  # the first ":" splits
    ({"HTTPS_PROXY": "http://proxy:3128"}, []),
    ({"HTTPS_PROXY": "http://u:pw@@proxy:99999"}, ["u", "u", "pw@", "pw@"]),  # invalid, still a secret
    ({}, []),
])
def test_the_secrets_inside_proxy_urls(env, secrets):
    assert proxy_secrets(env) == secrets


@pytest.mark.parametrize("value,shown", [
    ("http://alice:pw@proxy.example:3128", "http://proxy.example:3128"),
    ("alice:pw@proxy.example:3128", "http://proxy.example:3128"),
    ("https://proxy.example", "https://proxy.example"),
    ("http://proxy:99999", "(set, but not a valid proxy address)"),
    ("http://alice:pw@:3128", "(set, but not a valid proxy address)"),
])
def test_a_proxy_as_it_may_be_printed(value, shown):
    assert shown_proxy(value) == shown


def test_every_problem_of_an_environment_in_order():
    env = {"LITSEARCH_EMAIL": "not an address", "OPENALEX_EMAIL": "fine@example.org", "UNPAYWALL_EMAIL": "x@",
           "SEMANTIC_SCHOLAR_API_KEY": "ключ", "NCBI_API_KEY": "fine", "ZOTERO_API_KEY": "  ",
           "HTTPS_PROXY": "ftp://p:1", "http_proxy": "http://ok:1"}
    assert [(p.variable, str(p)) for p in problems(env, KEY_VARIABLES)] == [
        ("LITSEARCH_EMAIL", f"LITSEARCH_EMAIL {NOT_AN_ADDRESS}"),
        ("UNPAYWALL_EMAIL", f"UNPAYWALL_EMAIL {NOT_AN_ADDRESS}"),
        ("SEMANTIC_SCHOLAR_API_KEY", f"SEMANTIC_SCHOLAR_API_KEY {BAD_KEY}"),
        ("HTTPS_PROXY", f"HTTPS_PROXY {NOT_A_PROXY}: the scheme must be one of http, https, socks5, socks5h"),
    ]
    assert problems({"LITSEARCH_EMAIL": " jürgen@uni-köln.de ", "TAVILY_API_KEY": " tvly-1 "}, KEY_VARIABLES) == []
    assert problems({}, KEY_VARIABLES) == []


def test_excerpts_are_bounded():
    assert excerpt("short") == "'short'"
    assert excerpt("x" * 60) == repr("x" * 60)
    assert excerpt("x" * 61) == repr("x" * 59 + "…")
    assert excerpt("abcdef", limit=5) == "'abcd…'"
