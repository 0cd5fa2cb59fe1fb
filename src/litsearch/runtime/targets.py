"""The file a door is asked to write, checked before any work: one set of rules for every door
(the command line's ``-o`` and ``--record``, the MCP tools' ``output``), each error in the
door's own words for the option."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from ..core.errors import UsageError
from ..core.files import check_replaceable


@dataclass(frozen=True)
class OptionWords:
    """How a door names the file to write and the format it asks for."""

    output: str
    format: str


COMMAND_LINE = OptionWords("-o", "--format")
TOOL_ARGUMENTS = OptionWords("output", "format")


def check_file_target(path: str | None, flag: str, example: str) -> None:
    """A file the door will write, checked before any work: a file name, in an existing,
    writable folder, not a device and not a deep-search session. Any problem is a UsageError
    naming ``flag``."""
    if path is None:
        return
    if not str(path).strip():
        raise UsageError(f"{flag} is empty: name the file to write, e.g. {example}")
    target = Path(path)
    if str(path).endswith(("/", os.sep)) or target.is_dir():
        raise UsageError(f"{flag} {path}: a folder, not a file; name the file, e.g. {target / example}")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"{flag} {path}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK):
        raise UsageError(f"{flag} {path}: the folder {folder} is not writable")
    try:
        check_replaceable(target)
    except OSError as error:
        raise UsageError(f"{flag} {path}: {error.strerror}") from None
    from ..deep.session_file import session_file_kind

    kind = session_file_kind(target)
    if kind:
        raise UsageError(f"{flag} {path} is {kind}: writing there would replace it; name another file")


def output_format(path: str | None, option: str | None, allowed: Sequence[str], default: str,
                  words: OptionWords = COMMAND_LINE, example: str = "refs.bib") -> str:
    """The format to write, checked before any work: the output must name a file in an
    existing, writable folder (``check_file_target``), with an extension of one of the
    ``allowed`` formats that agrees with the format asked for (``option``, None when none was)
    when both are given; an extension that names no format at all (out.txt, refs.csl-json)
    takes the one asked for. Any problem is a UsageError naming the formats."""
    from ..biblio.formats import FORMAT_LABELS, extensions_for, format_from_path

    if path is None:
        return option or default
    check_file_target(path, words.output, example=example)
    named = format_from_path(str(path))
    if named is None and option in allowed:
        return option  # the format was named; the file's name is the user's to choose
    if named is None or named not in allowed:
        raise UsageError(f"{words.output} {path}: unknown extension; use {extensions_for(allowed)}, or name the "
                         f"format with {words.format}")
    if option is not None and option != named:
        raise UsageError(f"{words.output} {path} names {FORMAT_LABELS[named]} but {words.format} asks for "
                         f"{FORMAT_LABELS[option]}; use one, or make them agree")
    return named
