"""How long is the default 20-row table on real abstracts? Renders the Markdown the model
reads from real recorded answers (../shared/fixtures: OpenAlex and Semantic Scholar search
pages with their real titles, venues and abstracts), merged and ranked as a search would.

    .venv/bin/python bench/table_size.py
"""

from __future__ import annotations

import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from litsearch.providers import openalex, semantic_scholar  # noqa: E402
from litsearch.render.table import render_markdown  # noqa: E402
from litsearch.search.pipeline import ProviderOutcome, SearchResult, merge_and_rank  # noqa: E402

FIXTURES = REPO.parent / "shared" / "fixtures"
ANSWERS = [
    ("openalex", FIXTURES / "openalex" / "bodies" /
     "openalexPro__works_filter_title_and_abstract_search_biodiversity_AND_finance_200results_LARGE__00_200.json",
     openalex.parse_works),
    ("semantic_scholar", FIXTURES / "semantic_scholar" / "bodies" /
     "s2d__search_turing_fullfields_429x2_then_200_100recs__02_200.json", semantic_scholar.parse_search),
]


def table_for(provider: str, path: Path, parse, rows: int = 20) -> str:
    records = parse(path.read_bytes())[:50]
    outcome = ProviderOutcome(provider, "query", "search", records=records, requests=1, seconds=0.5)
    ranked = merge_and_rank([outcome], "relevance", ["query"])
    result = SearchResult(query="query", variants=[], outcomes=[outcome], results=ranked, provider_reason=None,
                          search_time_ms=500)
    return render_markdown(result, rows)


def main() -> int:
    if not FIXTURES.is_dir():
        print(f"needs the recorded answers in {FIXTURES}", file=sys.stderr)
        return 2
    print("| answer | rows with an abstract | characters | ~tokens (chars/4) |")
    print("|---|---|---|---|")
    for provider, path, parse in ANSWERS:
        text = table_for(provider, path, parse)
        snippets = text.count("\n> ")
        print(f"| {provider}: {path.name[:60]} | {snippets} of 20 | {len(text):,} | {len(text) // 4:,} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
