"""Which format ``-o`` writes: the extension's, agreeing with ``--format`` when both are given; a
file name whose extension names no format takes the one ``--format`` names (out.txt with --format
csv); with neither, one line naming the extensions."""

from __future__ import annotations

import pytest

from litsearch.cli.common import output_format
from litsearch.core.errors import UsageError
from litsearch.runtime.results import RESULT_FORMATS


@pytest.mark.parametrize("name,option,expected", [
    ("refs.bib", None, "bibtex"), ("refs.ris", "ris", "ris"), ("refs.csl.json", None, "csl-json"),
    ("out.txt", "csv", "csv"), ("refs.csl-json", "csl-json", "csl-json"), ("papers", "json", "json"),
    ("REFS.BIB", None, "bibtex"),
])
def test_the_format_written(name, option, expected, tmp_path):
    assert output_format(str(tmp_path / name), option, RESULT_FORMATS, "markdown") == expected


@pytest.mark.parametrize("name,option,said", [
    ("out.txt", None, "unknown extension; use .md"),  # no format named at all
    ("refs.bib", "ris", "names BibTeX but --format asks for RIS"),  # two formats named: which?
    ("out.docx", None, "or name the format with --format"),
])
def test_what_is_refused(name, option, said, tmp_path):
    with pytest.raises(UsageError) as refused:
        output_format(str(tmp_path / name), option, RESULT_FORMATS, "markdown")
    assert said in str(refused.value)
    assert "\n" not in str(refused.value)
