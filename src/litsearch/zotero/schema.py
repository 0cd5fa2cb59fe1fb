"""The part of Zotero's data model lit-search writes, and the check that an item fits it.

``ITEM_FIELDS`` lists, for each item type lit-search creates, the fields Zotero's schema
(version 41, what ``https://api.zotero.org/schema`` serves) allows; ``check_item`` tells what in
an item the schema would refuse. The tests run ``check_item`` against the full schema file
(``../shared/fixtures/zotero/zoteroschema__schema.json``) too, so this table cannot drift from it.
"""

from __future__ import annotations

from typing import Any, Mapping

SCHEMA_VERSION = 41
_COMMON = "title abstractNote date DOI citationKey url accessDate archive archiveLocation shortTitle language " \
          "libraryCatalog callNumber rights extra"
ITEM_FIELDS: dict[str, frozenset[str]] = {kind: frozenset((fields + " " + _COMMON).split()) for kind, fields in {
    "journalArticle": "publicationTitle publisher place volume issue section partNumber partTitle pages series "
                      "seriesTitle seriesText journalAbbreviation PMID PMCID ISSN",
    "preprint": "genre repository archiveID place series seriesNumber",
    "conferencePaper": "proceedingsTitle conferenceName publisher place eventPlace volume issue numberOfVolumes pages "
                       "series seriesNumber ISBN ISSN",
    "book": "series seriesNumber volume numberOfVolumes edition publisher place originalDate originalPublisher "
            "originalPlace format numPages ISBN ISSN",
    "bookSection": "bookTitle series seriesNumber volume numberOfVolumes edition publisher place originalDate "
                   "originalPublisher originalPlace format pages ISBN ISSN",
    "thesis": "thesisType university place series seriesNumber numPages ISBN ISSN",
    "report": "reportNumber reportType institution place seriesTitle seriesNumber pages ISBN ISSN",
    "document": "type publisher place",
}.items()}
# Every item may carry these besides its fields (Zotero's write API requires the last three).
ITEM_PROPERTIES = frozenset({"itemType", "creators", "tags", "collections", "relations", "key", "version"})
CREATOR_TYPES = frozenset({"author", "contributor", "editor"})


def check_item(item: Mapping[str, Any], schema: Mapping[str, Any] | None = None) -> list[str]:
    """What Zotero would refuse in ``item``, one phrase each ([] when it is valid): an unknown
    item type, a field its type does not have, a creator type it does not take, a malformed
    creator, tag or collection list. ``schema``: Zotero's schema.json as loaded (default: the
    table above)."""
    fields, creator_types = _type_rules(item.get("itemType"), schema)
    if fields is None:
        return [f"unknown item type {item.get('itemType')!r}"]
    problems = [f"field {name!r} is not a field of {item['itemType']}" for name in item
                if name not in fields and name not in ITEM_PROPERTIES]
    problems += [f"field {name!r} is not text" for name, value in item.items()
                 if name in fields and not isinstance(value, str)]
    for creator in item.get("creators", []):
        if not isinstance(creator, dict) or creator.get("creatorType") not in creator_types:
            problems.append(f"creator {creator!r} has no valid creatorType")
        elif not (("name" in creator and set(creator) == {"creatorType", "name"} and creator["name"].strip())
                  or ({"firstName", "lastName"} <= set(creator) and set(creator) <= {"creatorType", "firstName",
                                                                                     "lastName"}
                      and creator["lastName"].strip())):
            problems.append(f"creator {creator!r} needs a name, or a lastName and firstName")
    if not all(isinstance(tag, dict) and isinstance(tag.get("tag"), str) and tag["tag"] for tag in item.get("tags", [])):
        problems.append("tags must be {'tag': text} objects")
    if not all(isinstance(key, str) and len(key) == 8 for key in item.get("collections", [])):
        problems.append("collections must be 8-character keys")
    for required in ("tags", "collections", "relations"):
        if required not in item:
            problems.append(f"{required!r} is missing")
    return problems


def _type_rules(item_type: Any, schema: Mapping[str, Any] | None) -> tuple[set[str] | None, set[str]]:
    if schema is None:
        fields = ITEM_FIELDS.get(item_type) if isinstance(item_type, str) else None
        return (set(fields) if fields is not None else None), set(CREATOR_TYPES)
    for entry in schema.get("itemTypes", []):
        if entry.get("itemType") == item_type:
            return ({field["field"] for field in entry.get("fields", [])},
                    {creator["creatorType"] for creator in entry.get("creatorTypes", [])})
    return None, set()
