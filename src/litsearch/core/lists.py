"""What a user types as a comma LIST or a number, read one way everywhere: a LIST's items are
separated by single commas (an empty item, as in ``1,,2``, ``,1`` or ``1,``, is a typo that would
otherwise vanish without a word: a verdict LIST, deep/verdicts.py), and a number or a row is
plain ASCII decimal without leading zeros (``01``, ``+1``, ``1_0`` and other scripts' digits such
as ``١٠`` are what Python's ``int`` accepts, not what a user means to type; a minus sign is kept,
for each option's own range check to name). Both raise ValueError with one line naming the flag."""

from __future__ import annotations

import re

DECIMAL = re.compile(r"0|[1-9][0-9]*")  # re.ASCII is moot: the class lists the digits
WHOLE = re.compile(r"0|-?[1-9][0-9]*")  # an option's number: its range check names a negative one


def comma_items(text: str, flag: str, example: str = "a,b") -> list[str]:
    """The items of a comma LIST, each stripped; [] for a list that is empty or blank (it names
    nothing); ValueError for an empty item between, before or after the others."""
    if not text.strip():
        return []
    items = [item.strip() for item in text.split(",")]
    if "" in items:
        raise ValueError(f"{flag} {_shown(text)}: an empty item; separate the items by single commas ({example})")
    return items


def is_decimal(text: str) -> bool:
    """Plain ASCII decimal without leading zeros: ``0``, ``7``, ``120``."""
    return DECIMAL.fullmatch(text) is not None


def looks_numeric(text: str) -> bool:
    """Digits of any kind and nothing else (``01``, ``١٠``, ``²``): meant as a number, to be
    checked with ``is_decimal`` rather than read as a name or an id."""
    return bool(text) and all(char.isdigit() or char.isnumeric() for char in text)


def decimal(text: str) -> int:
    """The argparse type of a whole-number option: ValueError unless plain decimal (a negative
    one is read, for the option's own range check to refuse in its words)."""
    if WHOLE.fullmatch(text) is None:
        raise ValueError(f"{_shown(text)} is not a whole number written in the digits 0-9 without leading zeros")
    return int(text)


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:59] + "…")
