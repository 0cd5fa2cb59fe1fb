"""vcrpy configuration for the project's own cassettes (tests/cassettes/<provider>/*.yaml).

Cassettes replay offline (record mode "none"). A maintainer with network access
re-records them with LITSEARCH_RECORD_MODE=all (see tests/README.md). Keys and the
contact email are scrubbed from requests, and from response bodies that echo them.
"""

from __future__ import annotations

import os
from pathlib import Path

import vcr

CASSETTE_DIR = Path(__file__).resolve().parent / "cassettes"
SECRET_ENV = ("SEMANTIC_SCHOLAR_API_KEY", "NCBI_API_KEY", "OPENALEX_API_KEY", "TAVILY_API_KEY", "LITSEARCH_EMAIL",
              "OPENALEX_EMAIL", "UNPAYWALL_EMAIL")


def _scrub_body(response):
    body = response.get("body", {}).get("string")
    if not body:
        return response
    for name in SECRET_ENV:
        secret = os.environ.get(name, "").strip()
        if len(secret) >= 4:
            needle = secret.encode() if isinstance(body, bytes) else secret
            repl = b"[redacted]" if isinstance(body, bytes) else "[redacted]"
            body = body.replace(needle, repl)
    response["body"]["string"] = body
    return response


def cassette_vcr() -> vcr.VCR:
    return vcr.VCR(
        cassette_library_dir=str(CASSETTE_DIR),
        record_mode=os.environ.get("LITSEARCH_RECORD_MODE", "none"),
        match_on=["method", "scheme", "host", "path", "query"],
        filter_headers=["x-api-key", "authorization", ("user-agent", "lit-search (redacted)")],
        # Identity parameters are dropped (not masked) so a cassette replays with or without them.
        filter_query_parameters=[("api_key", None), ("email", None), ("mailto", None), ("tool", None)],
        filter_post_data_parameters=[("api_key", None), ("email", None), ("mailto", None), ("tool", None)],
        before_record_response=_scrub_body,
        decode_compressed_response=True,
    )
