"""Provider names in prose come from the registry: the MCP instructions and tool descriptions,
the command's help, the API's docstrings. The README's sources table and SKILL.md's
description are written by hand, so a test holds them to the registry; and no help string
lists export formats by hand (biblio/formats.py says them)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import REPO

from litsearch.biblio.formats import FORMATS
from litsearch.providers import registry

PACKAGE = REPO / "src" / "litsearch"
README = REPO / "README.md"
SKILL = REPO / ".claude" / "skills" / "lit-search" / "SKILL.md"


def missing_labels(text: str, names) -> list[str]:
    """The providers among ``names`` whose label ``text`` does not say."""
    return [name for name in names if registry.provider_label(name) not in text]


def sources_table(readme: str) -> str:
    """The first column of the README's table "Sources, and what each is asked"."""
    section = readme.split("## Sources, and what each is asked", 1)[1].split("\n## ", 1)[0]
    return "\n".join(line.split("|")[1] for line in section.splitlines() if line.startswith("| "))


def skill_description(skill: str) -> str:
    return re.search(r"^description: (.*)$", skill, re.M).group(1)


def test_the_readme_sources_table_names_every_searchable_provider():
    assert missing_labels(sources_table(README.read_text(encoding="utf-8")), registry.searchable()) == []


def test_the_skills_description_names_every_searchable_provider():
    assert missing_labels(skill_description(SKILL.read_text(encoding="utf-8")), registry.searchable()) == []


@pytest.mark.parametrize("name", registry.searchable())
def test_the_checks_fail_when_a_provider_is_left_out(name):
    label = registry.provider_label(name)
    table = sources_table(README.read_text(encoding="utf-8")).replace(label, "")
    description = skill_description(SKILL.read_text(encoding="utf-8")).replace(label, "")
    assert name in missing_labels(table, registry.searchable())
    assert name in missing_labels(description, registry.searchable())


def test_the_mcp_server_names_what_the_registry_declares():
    from litsearch.mcp_server.server import INSTRUCTIONS
    from litsearch.mcp_server.tools_papers import paper_search

    auto = registry.searched_by_auto()
    assert missing_labels(INSTRUCTIONS, auto) == []
    assert missing_labels(paper_search.__doc__, auto) == [] and "{" not in paper_search.__doc__
    import typing

    hint = typing.get_type_hints(paper_search, include_extras=True)["providers"]
    described = " ".join(str(getattr(extra, "description", "")) for extra in hint.__metadata__)
    assert described.startswith("default: chosen from the topic") and missing_labels(described, auto) == []


def test_the_command_help_names_what_the_registry_declares(capsys):
    from litsearch.cli.search import build_parser
    from litsearch.core.services import PREPRINTS, RETRACTIONS

    text = " ".join(build_parser().format_help().split())
    assert all(name in text for name in registry.searchable())  # --providers and the epilog
    assert missing_labels(text, registry.searched_by_auto()) == []  # the description
    assert f"asked of {registry.in_words(registry.searchable_with(PREPRINTS))}," in text
    assert f"leave out papers {registry.in_words(registry.searchable_with(RETRACTIONS), 'or')} mark" in text


def test_the_api_docstrings_name_every_searchable_provider():
    from litsearch.api import literature_search, search

    for function in (literature_search, search):
        assert all(name in function.__doc__ for name in registry.searchable()), function.__name__
        assert "{" not in function.__doc__


def test_prose_helpers():
    assert registry.in_words([]) == ""
    assert registry.in_words(["pubmed"]) == "PubMed"
    assert registry.in_words(["pubmed", "arxiv"]) == "PubMed and arXiv"
    assert registry.in_words(["pubmed", "arxiv", "openalex"], "or") == "PubMed, arXiv or OpenAlex"
    assert registry.in_words(["pubmed", "arxiv"], label=str) == "pubmed and arxiv"
    words = registry.auto_choice_in_words(label=str)
    assert words == ("semantic_scholar and openalex always, pubmed and europepmc for biomedical topics, "
                     "arxiv for computing/maths/physics topics")
    assert registry.searchable_with("notices") == ("pubmed", "crossref")


# ---------------------------------------------------------------- export formats from the table

EXTENSIONS = sorted({extension for found in FORMATS for extension in found.extensions}, key=len, reverse=True)


def extensions_named(text: str) -> set[str]:
    """The file extensions of biblio/formats.py that ``text`` names (".csl.json" is not ".json")."""
    found = set()
    for extension in EXTENSIONS:
        pattern = rf"(?<![\w.]){re.escape(extension)}\b"
        if re.search(pattern, text):
            found.add(extension)
            text = re.sub(pattern, " ", text)
    return found


def hand_written_format_lists(module: Path) -> list[str]:
    """help= texts and *_HELP constants that list three or more extensions by hand."""
    found = []
    for node in ast.walk(ast.parse(module.read_text())):
        texts = []
        if isinstance(node, ast.keyword) and node.arg == "help":
            texts = [node.value]
        elif isinstance(node, ast.Assign) and any(getattr(t, "id", "").endswith("_HELP") for t in node.targets):
            texts = [node.value]
        for value in texts:
            written = " ".join(part.value for part in ast.walk(value)
                               if isinstance(part, ast.Constant) and isinstance(part.value, str))
            if len(extensions_named(written)) >= 3:
                found.append(f"line {value.lineno}: {written[:80]}")
    return found


def test_no_help_string_lists_export_formats_by_hand():
    found = {str(module.relative_to(PACKAGE)): lines for module in sorted(PACKAGE.rglob("*.py"))
             if (lines := hand_written_format_lists(module))}
    assert found == {}


def test_the_format_rule_catches_a_list_written_by_hand(monkeypatch):
    source = ('OUTPUT_HELP = "write to FILE (format from its extension: .md, .json, .bib, .ris, .csl.json, .csv)"\n'
              'parser.add_argument("-o", help="one of .bib or .ris")\n'
              'parser.add_argument("--merged", help=f"{x}: .csv, .ris, .bib")\n')
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert [entry.split(":")[0] for entry in hand_written_format_lists(PACKAGE / "cli" / "results.py")] == \
        ["line 1", "line 3"]
    assert extensions_named(".csl.json, .json and .bib (merged.csv)") == {".csl.json", ".json", ".bib"}
