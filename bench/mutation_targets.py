"""What bench/mutation.py mutates, and which test files judge each module.

Each target: ``file`` (under the repository), ``module`` (its import name), ``tests`` (the
test files, or single tests, that exercise it in-process, quickest killers first: a test that
runs the command in a subprocess cannot see the mutant), and optionally ``only`` (function
names, ``Class.method`` names or module-level constant names: the parts of a larger module
that guard data).
"""

TARGETS = {
    "identifiers": {
        "file": "src/litsearch/core/identifiers.py", "module": "litsearch.core.identifiers",
        "tests": ["tests/core/test_identifier_forms.py", "tests/core/test_text_and_ids.py",
                  "tests/core/test_mutation_survivors.py"],
    },
    "judge": {
        "file": "src/litsearch/dedupe/judge.py", "module": "litsearch.dedupe.judge",
        "tests": ["tests/dedupe/test_judge_rules.py", "tests/dedupe/test_adversarial.py", "tests/dedupe/test_merge.py",
                  "tests/dedupe/test_dedupe_benchmark.py"],
    },
    "atomic_writer": {
        "file": "src/litsearch/cli/common.py", "module": "litsearch.cli.common",
        "only": ("write_file_atomically", "_umask"),
        "tests": ["tests/core/test_atomic_writer.py", "tests/core/test_mutation_survivors.py"],
    },
    "redaction": {
        "file": "src/litsearch/core/config.py", "module": "litsearch.core.config",
        "only": ("Settings.redact", "Settings._secret_spellings", "redactor"),
        "tests": ["tests/core/test_redaction.py", "tests/cli/test_secrets.py"],
    },
    "environment": {
        "file": "src/litsearch/core/environment.py", "module": "litsearch.core.environment",
        "tests": ["tests/core/test_environment_values.py", "tests/core/test_redaction.py"],
    },
    "updates": {
        "file": "src/litsearch/core/updates.py", "module": "litsearch.core.updates",
        "tests": ["tests/core/test_update_notices.py", "tests/core/test_mutation_survivors.py"],
    },
    "filters": {
        "file": "src/litsearch/core/filters.py", "module": "litsearch.core.filters",
        "tests": ["tests/core/test_filter_rules.py", "tests/core/test_mutation_survivors.py"],
    },
    "bibtex_ris": {
        "file": "src/litsearch/biblio/writers.py", "module": "litsearch.biblio.writers",
        # the BibTeX and RIS writers and what they share; CSL-JSON and CSV are left out
        "only": ("publication_kind", "_arxiv_id", "_link", "_page_range", "update_note", "_single_line",
                 "bibtex_escape", "bibtex_text", "_bibtex_title", "_keeps_its_case", "_bibtex_name", "_verbatim",
                 "bibtex_type", "_bibtex_fields", "_bibtex_key", "to_bibtex", "_ris_name", "_ris_lines", "to_ris",
                 "_PREPRINT_TYPES", "_CONFERENCE_TYPES", "_PREPRINT_VENUE", "_CONFERENCE_VENUE", "_OTHER_KINDS",
                 "_ARTICLE_TYPES", "_BIBTEX_SPECIAL", "_BIBTEX_SPECIAL_CHAR", "_DOUBLE_HYPHEN", "_BIBTEX_KEY_UNSAFE",
                 "_RIS_TYPE"),
        "tests": ["tests/biblio/test_bibtex_ris_writers.py", "tests/core/test_mutation_survivors.py",
                  "tests/biblio/test_exports.py"],
    },
    "crossref_check": {
        "file": "src/litsearch/providers/crossref.py", "module": "litsearch.providers.crossref",
        # the DOI check; query building and the search provider are not data guards
        "only": ("TITLE_MATCH_THRESHOLD", "MIN_TITLE_LENGTH_RATIO", "YEAR_TOLERANCE", "DATACITE_PREFIXES",
                 "VERIFY_BATCH", "_VERIFY_SELECT", "verify_doi", "verify_dois", "_verify_each", "verify_many",
                 "_verify_batch", "_absent", "title_similarity", "_compare", "_title_candidates", "_verdict",
                 "_fetch_work", "_identity", "_require_doi", "_doi_prefix"),
        "tests": ["tests/providers/test_crossref_check.py", "tests/core/test_mutation_survivors.py",
                  "tests/providers/test_crossref_parse.py"],
    },
    "crossref_parse": {
        "file": "src/litsearch/providers/crossref_parse.py", "module": "litsearch.providers.crossref_parse",
        "tests": ["tests/providers/test_crossref_check.py", "tests/providers/test_crossref_parse.py"],
    },
}

# Mutants no test can tell from the original, by target: the mutant's key (as the runner prints
# it) -> the one-line reason.
EQUIVALENT: dict[str, dict[str, str]] = {
    "identifiers": {
        "normalize_openalex_id | 1 -> 0 | return match.group(1).upper() if match else None":
            "the text is stripped first, so the whole match (W…\\s*$) is the group",
        "arxiv_id_from_doi | '' -> 'XX..XX' | match = _ARXIV_DOI.match(doi or \"\")":
            "the stand-in for None only has to fail the match, which 'XXXX' does too",
        "normalize_pmcid | '' -> 'XX..XX' | match = re.search(r\"(?:PMC)?(\\d+)/?\\s*$\", str(value or \"\"), re.I)":
            "the stand-in for None only has to hold no digits",
        "parse_pmcid_ref | '' -> 'XX..XX' | match = _PMCID_REF.match(\" \".join(str(text or \"\").split()))":
            "the stand-in for None only has to fail the match",
        "normalize_identifier | '' -> 'XX..XX' | if value is None or value == \"\":":
            "every normalizer, and the whitespace rule, already turn \"\" into None",
        "record_identities | continue -> break | continue":
            "external_ids is the last of the two sources: nothing follows to skip",
        "_DOI_URL | '^(?:https?://)?(?:dx\\\\.)?doi...' -> 'XX..XX' | "
        "_DOI_URL = re.compile(r\"^(?:https?://)?(?:dx\\.)?doi\\.org/\", re.I)":
            "_bare_ref reads doi.org URLs the same way (normalize_doi strips the prefix)",
        "_ARXIV_URL | '^(?:https?://)?(?:www\\\\.|exp...' -> 'XX..XX' | "
        "_ARXIV_URL = re.compile(r\"^(?:https?://)?(?:www\\.|export\\.)?arxiv\\.org/(?:abs|pdf)/\", re.I)":
            "_bare_ref reads arxiv.org URLs the same way (split_arxiv_id strips the URL)",
        "_url_ref | assign ... -> assign None | doi = normalize_doi(raw)":
            "a doi.org URL left unread here is read by _bare_ref with the same result",
        "_url_ref | return ... -> return None | return PaperRef(\"doi\", doi) if doi else None":
            "a doi.org URL left unread here is read by _bare_ref with the same result",
        "_url_ref | assign ... -> assign None | arxiv_id = normalize_arxiv_id(raw)":
            "an arxiv.org URL left unread here is read by _bare_ref with the same result",
        "_url_ref | return ... -> return None | return PaperRef(\"arxiv\", arxiv_id) if arxiv_id else None":
            "an arxiv.org URL left unread here is read by _bare_ref with the same result",
    },
    "updates": {
        "doi_in_citation | '' -> 'XX..XX' | match = _DOI_IN_TEXT.search(f\"{text or ''} \")":
            "the stand-in for None only has to hold no DOI",
        "merged_updates | 9 -> 10 | if item.get(\"type\") in UPDATE_TYPES else 9,":
            "any rank after the last known type (5) sorts unknown types last",
        "merged_updates | 9 -> 8 | if item.get(\"type\") in UPDATE_TYPES else 9,":
            "any rank after the last known type (5) sorts unknown types last",
    },
    "filters": {
        "Filters.describe | 'venue' -> 'XX..XX' | if name == \"venue\":":
            "the entity fallback at the end words an unresolved venue the same way: venue '…'",
        "Filters.describe | 'author' -> 'XX..XX' | if name == \"author\":":
            "the entity fallback at the end words an author the same way: author '…'",
        "parse_year_range | > -> >= | if start and end and start > end:":
            "start is a 1 January and end a 31 December: they are never equal",
        "parse_count_range | '>=' -> 'XX..XX' | return {\">\": (low + 1, None), \">=\": (low, None), "
        "\"<\": (None, max(low - 1, 0)), \"<=\": (None, low)}.get(":
            "the default for a missing operator is the same (low, None)",
        "parse_count_range | '' -> 'XX..XX' | operator or \"\", (low, None))":
            "any key missing from the table gives the same default (low, None)",
        "_paper_date | 1 -> 2 | return date(paper.year, 1, 1), False":
            "a year-only date is compared by its year alone",
        "_paper_date | 1 -> 2 #2 | return date(paper.year, 1, 1), False":
            "a year-only date is compared by its year alone",
        "_paper_date | False -> True | return None, False":
            "with no date the caller stops before reading the flag",
        "matches_date | 0 -> 1 | low = filters.year_from or 0":
            "years below 1 never reach here (date.min.year is 1)",
        "matches_date | 0 -> -1 | low = filters.year_from or 0":
            "years below 1 never reach here (date.min.year is 1)",
        "matches_date | 9999 -> 10000 | high = filters.year_to or 9999":
            "years above 9999 never reach here (date.max.year is 9999)",
        "matches_author | 0 -> -1 | if any(w == wanted[-1] for w in words) or any(w == wanted[0] for w in words[-1:]):":
            "the left-hand any() already tests wanted[-1] against every word",
        "matches_author | 1 -> 0 #3 | others = wanted[:-1] if wanted[-1] in words else wanted[1:]":
            "wanted[0] equals the last name word here, so adding it to the words to find changes nothing",
        "matches | 0 -> -1 #2 | return (paper.citation_count or 0) >= (filters.min_citations or 0)":
            "citation counts are never negative: >= 0 and >= -1 agree",
    },
}
