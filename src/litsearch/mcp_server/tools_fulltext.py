"""paper_read: the full text of a paper's legally open copy (``lit-search read``), in sections,
bounded like every other tool: the section list first, then as many whole sections as fit."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from .conduct import ASKS_THE_APIS, declare
from .outputs import ReadResult
from .runtime import current, tool_result

# What a read result spends besides the paper's own text: the header, the section table, the
# summary line and the data beside the Markdown.
OVERHEAD_CHARS = 6_000
MIN_TEXT_CHARS = 2_000


@declare(ASKS_THE_APIS, ReadResult)
async def paper_read(
    id: Annotated[str, Field(min_length=1, max_length=300,
                             description="PMCID, DOI, PMID, arXiv id, OpenAlex W-id or Semantic Scholar id")],
    sections: Annotated[list[str] | None, Field(max_length=30, description="sections to read, by name or number "
                                                                          "from the section list (e.g. methods, "
                                                                          "results, 4); all when empty")] = None,
    max_chars: Annotated[int | None, Field(ge=MIN_TEXT_CHARS, le=200_000,
                                           description="characters of paper text at most (default: what fits "
                                                       "one result)")] = None,
):
    """Read the full text of a paper's legally open copy: PubMed Central or Europe PMC for a PMCID, arXiv's
    HTML (then its PDF) for an arXiv id, otherwise the open copies Semantic Scholar and OpenAlex name, then
    Unpaywall's (HTML, or PDF with page markers); nothing from shadow libraries. Use it after paper_search or
    paper_get when the abstract is not enough: read the methods, the results, a figure caption or the
    references. The result lists every section with its size and whether it is shown, then the text in reading
    order up to the limit (the section that does not fit cut, with how much is left), and names the sections
    left out: ask again with sections=[...] for those. A paper without an open copy is a tool error saying so."""
    from ..fulltext.read import read_paper
    from ..render.fulltext import read_markdown, read_payload

    runtime = current()
    limit = max_chars or max(MIN_TEXT_CHARS, runtime.max_chars - OVERHEAD_CHARS)
    result = await read_paper(id, tuple(sections or ()), limit, settings=runtime.settings,
                              store=await runtime.opened.store(), connections=runtime.opened.connections())
    payload = read_payload(result)
    # The sections' text is in the Markdown already: the data carries the rest (sizes, what is
    # shown and left out), so the result is not twice the paper.
    data: dict[str, Any] = {key: value for key, value in payload.items() if key != "shown"}
    data["shown_sections"] = [{key: value for key, value in section.items() if key != "text"}
                              for section in payload["shown"]]
    return tool_result(read_markdown(result), data)
