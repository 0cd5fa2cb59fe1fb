"""``lit-search read ID``: the full text of a legally open copy of one paper, in sections.

stdout carries the text (Markdown, plain text or JSON); which copies were tried and the
progress go to stderr."""

from __future__ import annotations

from typing import Sequence

from ..core.errors import EXIT_CODES_HELP, ExitCode, UsageError
from ..core.identifiers import ID_HELP
from ..runtime.console import Console
from ..runtime.settings import load_settings
from .common import add_cache_options, add_quiet_option, cache_mode, \
    new_parser, run_command, whole_number, write_output
from .interrupt import run_async

PROG = "lit-search read"
FORMATS = ("markdown", "json", "text")


def _environment_words() -> str:
    """The variables of the services full texts come from, as they declare them."""
    from ..core.services import FULL_TEXT, OPEN_ACCESS
    from ..providers import registry

    used = [registry.service(name) for name in registry.with_capability(FULL_TEXT) + registry.with_capability(OPEN_ACCESS)]
    urls = [found.url_variable for found in used if found.url_variable]
    keys = [found.key.variable for found in used if found.key]
    return (f"environment: {', '.join(urls[:3])},\n  {', '.join(urls[3:])} (base URLs), "
            f"{', '.join(keys)}, LITSEARCH_EMAIL.")

DESCRIPTION = """\
Read the full text of a legally open copy of one paper: title, authors, licence and source,
the list of sections with their sizes, then the sections in order (abstract, introduction,
methods, results, discussion ...), figure and table captions and the reference list.
Nothing is cut silently: what does not fit in --max-chars is named, with its size."""

EPILOG = f"""\
ids: a PMCID (PMC3299399, a PMC or Europe PMC article URL), or {ID_HELP}.
sources, best first: PubMed Central's JATS XML for a PMCID (NCBI efetch db=pmc, then Europe PMC
  fullTextXML); arXiv's HTML rendering for an arXiv id, then its PDF; for other papers, the ids
  Semantic Scholar and OpenAlex know (PMCID, arXiv id), then the open copies they name
  (openAccessPdf, OpenAlex's open locations), then those Unpaywall names for the DOI (needs
  LITSEARCH_EMAIL): the article page when it holds the text, else the PDF. PDF text is read with pypdf, with [page N] markers; a scanned PDF has no text to read.
  No shadow libraries. A text read once is kept in the local cache for 30 days.
sections: --section takes a section's name or number from the list, a kind of section
  (abstract, introduction, methods, results, discussion, conclusions, figures, tables,
  references ...) or words of its heading; a section comes with its subsections.
limits: --max-chars counts the characters of the sections' text (default 50000; 0: no limit).
  The text is filled in reading order: whole sections while they fit, then the next one is cut
  with a marker saying how much is left, and the later ones are listed as left out.
{_environment_words()}
{EXIT_CODES_HELP}
  Here: 3 copies exist but none could be fetched; 5 no open copy is known (or the paper is unknown).
examples:
  lit-search read PMC3299399 --section methods
  lit-search read 10.7717/peerj.1120 --max-chars 20000
  lit-search read arXiv:1706.03762 --format json"""


def build_parser():
    parser = new_parser(PROG, DESCRIPTION, EPILOG)
    parser.add_argument("id", metavar="ID", help="the paper: PMCID, DOI, PMID, arXiv id, Semantic Scholar or "
                                                 "OpenAlex id")
    parser.add_argument("--section", action="append", default=[], metavar="NAME",
                        help="show this section (with its subsections); repeat for more (default: all)")
    parser.add_argument("--max-chars", type=whole_number, default=None, metavar="N",
                        help="at most N characters of section text (default 50000; 0: no limit)")
    parser.add_argument("--format", choices=FORMATS, default="markdown",
                        help="markdown (default), json (every section's size, the shown text) or text")
    add_quiet_option(parser)
    add_cache_options(parser)
    return parser


def main(argv: Sequence[str]) -> int:
    return run_command(PROG, lambda: read_command(argv))


def read_command(argv: Sequence[str]) -> int:
    from ..fulltext.read import DEFAULT_MAX_CHARS, parse_read_ref

    args = build_parser().parse_args(list(argv))
    ref = parse_read_ref(args.id)
    max_chars = DEFAULT_MAX_CHARS if args.max_chars is None else args.max_chars
    if max_chars < 0:
        raise UsageError(f"--max-chars must be 0 (no limit) or more, not {max_chars}")
    for name in args.section:
        if not name.strip() or len(name) > 200:
            raise UsageError("--section needs a section name, number or kind (e.g. --section methods)")
    settings = load_settings()
    console = Console(settings, args.quiet)
    result = _read(ref, args, max_chars, settings, console)
    for note in result.notes:
        console.say(f"note: {note}")
    from ..render.fulltext import read_json, read_markdown, read_text

    render = {"json": read_json, "text": read_text, "markdown": read_markdown}[args.format]
    write_output(render(result), settings)
    return ExitCode.OK


def _read(ref, args, max_chars, settings, console):
    from ..fulltext.read import read_paper
    from ..runtime.online import opened_cache

    with opened_cache(settings, cache_mode(args), console) as (_cache, store):
        return run_async(read_paper(ref, args.section, max_chars, settings=settings, cache_mode=cache_mode(args),
                                      store=store, progress=console.say))
