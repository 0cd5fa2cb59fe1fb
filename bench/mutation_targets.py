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
}
