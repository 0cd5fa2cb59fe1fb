"""Secrets removed before anything is shown, logged, stored or written (Settings.redact): every
spelling a server may echo a key or a proxy password in, and which values count as secrets.
Written to kill the mutants of the redaction code in core/config.py (bench/mutation.py)."""

from __future__ import annotations

import html
import json
from urllib.parse import quote, quote_plus

import pytest

from litsearch.core.config import Settings, environment_secrets
from litsearch.providers.registry import services
from litsearch.runtime.settings import redactor, settings_from_env

# Shaped like the real thing: a Semantic Scholar key (40 characters, letters and digits) and a
# proxy password with characters that every encoding spells differently.
S2_KEY = "Zq8RmT3vWx0kLp5sNb7YcUe2HfGj4DaA9oIiVt1E"
PASSWORD = "p@ss w/rd+&<é>\"%"


def settings(*secrets: str) -> Settings:
    return Settings(base_urls={}, secrets=secrets)


@pytest.mark.parametrize("spelling", [
    PASSWORD,
    quote(PASSWORD, safe=""),                 # a path segment or a query value
    quote(PASSWORD),                          # a path, "/" kept
    quote_plus(PASSWORD, safe=""),            # a form body
    quote_plus(PASSWORD),                     # a form body, "/" kept
    quote(PASSWORD, safe="").lower(),         # lower-case hex, as some servers echo it
    quote_plus(PASSWORD).lower(),
    json.dumps(PASSWORD)[1:-1],               # inside a JSON string
    html.escape(PASSWORD, quote=True),        # inside an HTML page
])
def test_every_spelling_of_a_secret_is_removed(spelling):
    text = f"error: the proxy said {spelling} is wrong"
    assert settings(PASSWORD).redact(text) == "error: the proxy said [redacted] is wrong"


def test_the_spellings_made_for_one_secret():
    spellings = settings("ab/c+d é")._secret_spellings
    assert set(spellings) == {"ab/c+d é", "ab%2Fc%2Bd%20%C3%A9", "ab/c%2Bd%20%C3%A9", "ab%2Fc%2Bd+%C3%A9",
                              "ab%2fc%2bd%20%c3%a9", "ab/c%2bd%20%c3%a9", "ab%2fc%2bd+%c3%a9", "ab/c+d \\u00e9"}
    assert [len(s) for s in spellings] == sorted((len(s) for s in spellings), reverse=True)


def test_a_key_anywhere_and_any_number_of_times():
    text = f"GET /graph/v1/paper?key={S2_KEY}&x=1 x-api-key: {S2_KEY}\n{S2_KEY}{S2_KEY}"
    assert settings(S2_KEY).redact(text) == ("GET /graph/v1/paper?key=[redacted]&x=1 x-api-key: [redacted]\n"
                                            "[redacted][redacted]")


def test_several_secrets_and_the_longest_spelling_first():
    # "abcd" is inside the longer secret: replacing it first would leave "…efgh" behind.
    assert settings("abcd", "abcdefgh").redact("k=abcdefgh j=abcd") == "k=[redacted] j=[redacted]"
    assert settings("abcdefgh", "abcd").redact("k=abcdefgh j=abcd") == "k=[redacted] j=[redacted]"
    # an encoded spelling longer than the secret itself goes before it too
    secret = "a b c d"
    assert settings(secret).redact(f"q={quote(secret, safe='')}") == "q=[redacted]"


@pytest.mark.parametrize("secret,kept", [("abc", True), ("abcd", False), ("", True)])
def test_secrets_under_four_characters_are_left_alone(secret, kept):
    text = "abcd abc, a table of results"
    assert (settings(secret).redact(text) == text) is kept


def test_text_without_secrets_is_returned_as_it_was():
    assert settings().redact("nothing here") == "nothing here"
    assert settings(S2_KEY).redact("") == ""


def test_the_secrets_of_an_environment():
    env = {"SEMANTIC_SCHOLAR_API_KEY": f"  {S2_KEY}\n", "NCBI_API_KEY": "", "OPENALEX_API_KEY": "   ",
           "TAVILY_API_KEY": "tvly-abcdef", "ZOTERO_API_KEY": "tvly-abcdef",
           "HTTPS_PROXY": "http://alice:s%40cret@proxy.example:3128", "LITSEARCH_EMAIL": "me@example.org",
           "UNRELATED_API_KEY": "not ours"}
    assert environment_secrets(env, services()) == (S2_KEY, "tvly-abcdef", "alice", "s%40cret", "s@cret")
    assert environment_secrets({}, services()) == ()


def test_every_key_variable_is_a_secret():
    for variable in ("SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "OPENALEX_API_KEY", "TAVILY_API_KEY",
                     "ZOTERO_API_KEY"):
        assert environment_secrets({variable: "key-value-1"}, services()) == ("key-value-1",)


def test_the_redactor_works_even_when_the_environment_is_invalid():
    env = {"NCBI_API_KEY": "bad\x01key-abc", "HTTP_PROXY": "user:pw12@proxy:99999"}
    redact = redactor(env).redact
    assert redact("key bad\x01key-abc, proxy pw12") == "key [redacted], proxy [redacted]"
    assert redactor(env).base_urls["openalex"] == "https://api.openalex.org"


def test_the_redactor_reads_the_process_environment_by_default(monkeypatch):
    monkeypatch.setenv("OPENALEX_API_KEY", "oa-key-12345")
    assert redactor().redact("api_key=oa-key-12345") == "api_key=[redacted]"


def test_settings_from_the_environment_redact_their_own_keys():
    built = settings_from_env({"SEMANTIC_SCHOLAR_API_KEY": S2_KEY, "HTTPS_PROXY": "http://u:longpassword@h:8080"})
    assert built.redact(f"{S2_KEY} longpassword") == "[redacted] [redacted]"
