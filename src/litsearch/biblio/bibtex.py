"""Reading BibTeX: a forgiving scanner for .bib files (strings, macros, comments, either
delimiter) and TeX-to-Unicode decoding of the values (accents, escapes, dashes, Greek)."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

from ..core.errors import InputError
from .fields import RawRecord, split_bibtex_authors
from .source import SourceRecord

_BIBTEX_ENTRY = re.compile(r"^[ \t]*@[A-Za-z]+[ \t]*[{(]", re.M)

# --------------------------------------------------------------------------- BibTeX

_ENTRY_HEAD = re.compile(r"[ \t\n]*([A-Za-z][\w-]*)[ \t\n]*([{(])")
_KEY = re.compile(r"[ \t\n]*([^\s,={}()\"#%']*)[ \t\n]*")
_FIELD_NAME = re.compile(r"[ \t\n]*([A-Za-z_][\w:.+-]*)[ \t\n]*=[ \t\n]*")
_DELIMITED_SPECIAL = re.compile(r'[\\{}"]')
_SPACE_RUN = re.compile(r"\s*")
_BETWEEN_FIELDS = re.compile(r"(?:\s|,|%[^\n]*)*")
_MACRO_NAME = re.compile(r"[A-Za-z_][\w:.+-]*")
_NUMBER = re.compile(r"\d+")
_MONTHS = {name: str(number) for number, name in enumerate(
    ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), start=1)}
# Fields copied byte for byte apart from TeX escapes: identifiers and links.
_VERBATIM_FIELDS = {"doi", "url", "eprint", "pmid"}


class _BibtexScanner:
    """A reader of BibTeX's grammar: entries, @string macros, # concatenation, comments.

    Text outside entries is a comment (BibTeX's own rule), so "%" lines and stray notes
    need no special case. @comment and @preamble blocks are skipped.
    """

    def __init__(self, text: str, source: str | Path):
        self.text = text
        self.source = source
        self.pos = 0
        self.macros: dict[str, str] = dict(_MONTHS)
        self.entry: tuple[str, int] | None = None  # (key, start offset) of the entry being read, for errors

    def entries(self) -> list[tuple[str, str, dict[str, str], str]]:
        """(entry type, key, raw field values in file order, the entry's text) of every entry."""
        found = []
        while (at := self.text.find("@", self.pos)) != -1:
            self.pos = at + 1
            if self._in_percent_comment(at):
                continue  # "% @article{old, …" is a commented-out entry
            head = _ENTRY_HEAD.match(self.text, self.pos)
            if not head:
                continue  # an "@" in the free text between entries
            kind, closer = head.group(1).lower(), ")" if head.group(2) == "(" else "}"
            self.pos = head.end()
            self.entry = ("@" + kind, at)
            if kind in ("comment", "preamble"):
                self._skip_block(closer, at)
            elif kind == "string":
                self._read_macro(closer, at)
            else:
                key, fields = self._read_entry(closer, at)
                found.append((kind, key, fields, self.text[at : self.pos]))
            self.entry = None
        return found

    # -- pieces of the grammar

    def _read_entry(self, closer: str, start: int) -> tuple[str, dict[str, str]]:
        key_match = _KEY.match(self.text, self.pos)
        key, after_key = key_match.group(1), key_match.end()
        following = self._char_at(after_key)
        if following == "=":
            key = ""  # "@article{title = …": an entry without a key; the fields start here
        self.entry = (key or "(no key)", start)
        if following in (",", closer):
            self.pos = after_key + 1
            if following == closer:
                return key, {}
        elif following != "=":
            self._fail(after_key, f"unexpected {self._describe(after_key)} after the entry key")
        return key, self._read_fields(closer, start)

    def _read_fields(self, closer: str, start: int) -> dict[str, str]:
        fields: dict[str, str] = {}
        while True:
            self._skip_space_and_commas()
            if self.pos >= len(self.text):
                self._fail(start, "the entry never closes (unbalanced braces or quotes?)")
            if self.text[self.pos] == closer:
                self.pos += 1
                return fields
            name = _FIELD_NAME.match(self.text, self.pos)
            if not name:
                self._fail(self.pos, f"expected a field name, found {self._describe(self.pos)}")
            self.pos = name.end()
            value = self._read_value(start)
            fields.setdefault(name.group(1).lower(), value)  # a repeated field: the first one counts
            self._skip_space()
            if self._char_at(self.pos) not in (",", closer):
                self._fail(self.pos, f"expected ',' or '{closer}' after field {name.group(1)}, "
                                     f"found {self._describe(self.pos)}{self._unbalanced_hint()}")

    def _read_value(self, start: int) -> str:
        """A value: braced or quoted strings, numbers and macro names joined with '#'."""
        parts = []
        while True:
            self._skip_space()
            char = self._char_at(self.pos)
            if char == "{":
                parts.append(self._read_delimited("{", start))
            elif char == '"':
                parts.append(self._read_delimited('"', start))
            elif number := _NUMBER.match(self.text, self.pos):
                parts.append(number.group())
                self.pos = number.end()
            elif macro := _MACRO_NAME.match(self.text, self.pos):
                # An undefined macro (a journal abbreviation from a missing .bib) stays as its name.
                parts.append(self.macros.get(macro.group().lower(), macro.group()))
                self.pos = macro.end()
            else:
                self._fail(self.pos, f"expected a field value, found {self._describe(self.pos)}")
            self._skip_space()
            if self._char_at(self.pos) != "#":
                return "".join(parts)
            self.pos += 1

    def _read_delimited(self, opener: str, start: int) -> str:
        """The text inside {…} or "…", inner braces kept; a quote inside braces does not end it."""
        depth, text = 0, self.text
        index = self.pos + 1
        while True:
            special = _DELIMITED_SPECIAL.search(text, index)  # jump to the next character that matters
            if special is None:
                self._fail(start, "the entry never closes (unbalanced braces or quotes?)")
            index, char = special.start(), special.group()
            if char == "\\":
                index += 2  # an escaped brace or quote does not count
                continue
            if char == "{":
                depth += 1
            elif char == "}":
                if depth == 0 and opener == "{":
                    break
                depth -= 1
                if depth < 0:
                    self._fail(index, "unbalanced '}'")
            elif opener == '"' and depth == 0:
                break
            index += 1
        value = text[self.pos + 1 : index]
        self.pos = index + 1
        return value

    def _read_macro(self, closer: str, start: int) -> None:
        name = _FIELD_NAME.match(self.text, self.pos)
        if not name:
            self._fail(self.pos, "malformed @string definition")
        self.pos = name.end()
        self.macros[name.group(1).lower()] = self._read_value(start)
        self._skip_space()
        if self._char_at(self.pos) != closer:
            self._fail(self.pos, f"expected '{closer}' to close the @string definition")
        self.pos += 1

    def _skip_block(self, closer: str, start: int) -> None:
        """Skip a @comment/@preamble body; an unclosed one ends at its line (comments are lenient)."""
        opener = "(" if closer == ")" else "{"
        depth, index = 1, self.pos
        while index < len(self.text) and depth:
            depth += {opener: 1, closer: -1}.get(self.text[index], 0)
            index += 1
        if depth:
            line_end = self.text.find("\n", start)
            index = len(self.text) if line_end == -1 else line_end
        self.pos = index

    # -- small helpers

    def _char_at(self, index: int) -> str:
        return self.text[index] if index < len(self.text) else ""

    def _skip_space(self) -> None:
        self.pos = _SPACE_RUN.match(self.text, self.pos).end()

    def _skip_space_and_commas(self) -> None:
        """Between fields: whitespace, stray commas and "%" comment lines (biber allows them)."""
        self.pos = _BETWEEN_FIELDS.match(self.text, self.pos).end()

    def _in_percent_comment(self, index: int) -> bool:
        line_start = self.text.rfind("\n", 0, index) + 1
        return self.text[line_start:index].lstrip().startswith("%")

    def _describe(self, index: int) -> str:
        char = self._char_at(index)
        return f"'{char}'" if char else "the end of the file"

    def _unbalanced_hint(self) -> str:
        return " (a brace left open in the entry?)" if self._char_at(self.pos) == "@" else ""

    def _line(self, index: int) -> int:
        return self.text.count("\n", 0, index) + 1

    def _fail(self, index: int, problem: str):
        where = f"line {self._line(index)}"
        if self.entry is not None:
            key, start = self.entry
            where += f" (in {key}, which starts on line {self._line(start)})" if self._line(start) != self._line(
                index) else f" (in {key})"
        raise InputError(f"{self.source}: {where}: {problem}")


def parse_bibtex(text: str, source: str | Path = "input") -> list[RawRecord]:
    """Records of a .bib file, TeX accents and escapes decoded to Unicode."""
    entries = _BibtexScanner(text, source).entries()
    if not entries and not _BIBTEX_ENTRY.search(text):
        raise InputError(f"{source}: no BibTeX entries found (no line starting '@type{{')")
    return [_bibtex_record(kind, key, raw, own_text) for kind, key, raw, own_text in entries]


def _bibtex_record(kind: str, key: str, raw: dict[str, str], own_text: str) -> RawRecord:
    def value(*names: str) -> str:
        for name in names:
            if raw.get(name, "").strip():
                return decode_latex(raw[name], verbatim=name in _VERBATIM_FIELDS)
        return ""

    eprint_kind = value("archiveprefix", "eprinttype").lower()
    eprint = value("eprint")
    fields = {
        "ID": key,
        "ENTRYTYPE": kind,
        "title": value("title"),
        "journal": value("journal", "journaltitle"),
        "booktitle": value("booktitle"),
        "year": value("year", "date"),
        "volume": value("volume"),
        "number": value("number", "issue"),
        "pages": value("pages").replace("–", "-"),  # TeX's en dash "47--65" is the range "47-65"
        "doi": value("doi"),
        "pmid": value("pmid") or (eprint if eprint_kind == "pubmed" else ""),
        "eprint": eprint if eprint_kind in ("", "arxiv") else "",
        "abstract": value("abstract"),
        "url": value("url"),
    }
    authors = [decode_latex(name) for name in split_bibtex_authors(raw.get("author"))]
    source = SourceRecord("bibtex", kind, list(raw.items()), key, own_text)
    return RawRecord(fields=fields, authors=[name for name in authors if name], source=source)


# --------------------------------------------------------------------------- TeX -> Unicode

_COMBINING = {"`": "\u0300", "'": "\u0301", "^": "\u0302", "~": "\u0303", "=": "\u0304", "u": "\u0306",
              ".": "\u0307", '"': "\u0308", "r": "\u030a", "H": "\u030b", "v": "\u030c", "d": "\u0323",
              "c": "\u0327", "k": "\u0328", "b": "\u0331"}
_ACCENT_BASE = r"(?:\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|(\\[ij](?![A-Za-z])|[A-Za-z]))"
# Symbol accents take their letter directly (\"u); letter accents need a brace or space (\c c, \v{s}).
_SYMBOL_ACCENT = re.compile(r"""\\([`'^~=."])\s*""" + _ACCENT_BASE)
_LETTER_ACCENT = re.compile(r"\\([uvHckrdb])(?:\s*\{\s*(\\[ij](?![A-Za-z])|[A-Za-z])\s*\}|\s+(\\[ij](?![A-Za-z])|[A-Za-z]))")
_SPECIAL_LETTERS = {"ss": "ß", "ae": "æ", "AE": "Æ", "oe": "œ", "OE": "Œ", "aa": "å", "AA": "Å", "o": "ø",
                    "O": "Ø", "l": "ł", "L": "Ł", "i": "ı", "j": "ȷ"}
_SPECIAL_LETTER = re.compile(r"\\(ss|ae|AE|oe|OE|aa|AA|o|O|l|L|i|j)(?![A-Za-z])(?:\{\}|[ \t\n]+)?")
# Characters that must survive the final brace and dollar stripping are parked in the
# private-use area while decoding and put back at the end.
_KEEP = {"{": "\ue010", "}": "\ue011", "$": "\ue012", "~": "\ue013", "\\": "\ue014"}
_NAMED_SYMBOLS = {"textbackslash": _KEEP["\\"], "textbraceleft": _KEEP["{"], "textbraceright": _KEEP["}"],
                  "textasciitilde": _KEEP["~"], "textasciicircum": "^", "textdollar": _KEEP["$"],
                  "textunderscore": "_", "textendash": "–", "textemdash": "—", "ldots": "…", "dots": "…",
                  "textquoteright": "’", "textquoteleft": "‘", "textquotedblleft": "“", "textquotedblright": "”",
                  "textregistered": "®", "texttrademark": "™", "copyright": "©", "textdegree": "°", "pounds": "£",
                  "euro": "€", "S": "§", "P": "¶", "textperiodcentered": "·", "times": "×", "pm": "±",
                  "leq": "≤", "geq": "≥", "le": "≤", "ge": "≥", "neq": "≠", "approx": "≈", "infty": "∞"}
_GREEK = ("alpha beta gamma delta epsilon varepsilon zeta eta theta vartheta iota kappa lambda mu nu xi pi "
          "rho sigma tau upsilon phi varphi chi psi omega Gamma Delta Theta Lambda Xi Pi Sigma Upsilon Phi Psi Omega")
_GREEK_LETTERS = dict(zip(_GREEK.split(), "αβγδεεζηθϑικλμνξπρστυφϕχψωΓΔΘΛΞΠΣΥΦΨΩ"))
# Font switches apply to the rest of their group ("{\\em E. coli}"): the text stays, the switch goes.
_FONT_SWITCHES = {"em", "it", "bf", "sc", "rm", "sf", "tt", "sl", "up", "itshape", "bfseries", "scshape", "upshape",
                  "slshape", "mdseries", "normalfont", "small", "footnotesize", "large", "Large", "tiny", "relax",
                  "protect", "noopsort", "noop"}
_NAMED_COMMAND = re.compile(r"\\([A-Za-z]+)(?:\{\}|[ \t\n]+)?")
_ESCAPED_CHAR = re.compile(r"\\([&%$#_{}\\ ,;:!/\-@~^'\"`=.])")
_ESCAPED_VALUES = {"{": _KEEP["{"], "}": _KEEP["}"], "$": _KEEP["$"], "\\": " ", " ": " ", ",": " ", ";": " ",
                   ":": " ", "!": "", "/": "", "-": "", "@": "", "~": _KEEP["~"]}
_DASHES = (("---", "—"), ("--", "–"))
_SPACE = re.compile(r"\s+")
_TEX_MARKUP = re.compile(r"[\\{}$~]|--")
_VERBATIM_ESCAPE = re.compile(r"\\([&%$#_~])")
_VERBATIM_DROP = re.compile(r"[{}\s]")


def decode_latex(value: str, *, verbatim: bool = False) -> str:
    """Unicode text of a BibTeX value: accents (``{\\"u}``, ``\\'{e}``, ``\\c{c}``), special letters
    (``\\ss``, ``\\o``), escapes (``\\&``, ``\\%``), dashes and Greek letters; braces and math
    dollars removed, whitespace collapsed. Formatting commands (``\\emph{x}``) keep their text,
    unknown commands their name.

    `verbatim` (DOIs, URLs): only escapes and braces are removed, whitespace dropped.
    """
    if verbatim:
        return _VERBATIM_DROP.sub("", _VERBATIM_ESCAPE.sub(r"\1", value))
    if not _TEX_MARKUP.search(value):  # most values: plain text, only whitespace to tidy
        text = " ".join(value.split())
        return text if text.isascii() else unicodedata.normalize("NFC", text)
    text = value
    if "\\" in text:
        text = _SYMBOL_ACCENT.sub(_compose_accent, text)
        text = _LETTER_ACCENT.sub(_compose_accent, text)
        text = _SPECIAL_LETTER.sub(lambda m: _SPECIAL_LETTERS[m.group(1)], text)
        text = _ESCAPED_CHAR.sub(lambda m: _ESCAPED_VALUES.get(m.group(1), m.group(1)), text)
        text = _NAMED_COMMAND.sub(_named_command, text)
    for tex, dash in _DASHES:
        text = text.replace(tex, dash)
    text = text.replace("~", " ").replace("{", "").replace("}", "").replace("$", "")
    for char, parked in _KEEP.items():
        text = text.replace(parked, char)
    return unicodedata.normalize("NFC", _SPACE.sub(" ", text).strip())


def _compose_accent(match: re.Match) -> str:
    base = match.group(2) or match.group(3)
    letter = {"\\i": "i", "\\j": "j"}.get(base, base)
    return unicodedata.normalize("NFC", letter + _COMBINING[match.group(1)])


def _named_command(match: re.Match) -> str:
    name = match.group(1)
    if name in _NAMED_SYMBOLS:
        return _NAMED_SYMBOLS[name]
    if name in _GREEK_LETTERS:
        return _GREEK_LETTERS[name]
    if name in _FONT_SWITCHES:
        return ""
    # Formatting (\emph{x}, \textit{x}) keeps its argument, which follows in braces;
    # an unknown word command (\LaTeX) keeps its name.
    return "" if match.end() < len(match.string) and match.string[match.end()] == "{" else name
