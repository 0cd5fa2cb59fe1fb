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
                  "tests/core/test_mutation_survivors.py", "tests/dedupe/test_preprint_versions.py"],
    },
    "judge": {
        "file": "src/litsearch/dedupe/judge.py", "module": "litsearch.dedupe.judge",
        "tests": ["tests/dedupe/test_judge_rules.py", "tests/dedupe/test_adversarial.py", "tests/dedupe/test_merge.py",
                  "tests/dedupe/test_dedupe_benchmark.py"],
    },
    "atomic_writer": {
        "file": "src/litsearch/runtime/files.py", "module": "litsearch.runtime.files",
        "tests": ["tests/runtime/test_atomic_writer.py", "tests/core/test_mutation_survivors.py"],
    },
    "redaction": {
        "file": "src/litsearch/core/config.py", "module": "litsearch.core.config",
        "only": ("Settings.redact", "Settings._secret_spellings", "environment_secrets", "key_variables"),
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
        "tests": ["tests/providers/test_crossref_records.py", "tests/providers/test_crossref_check.py",
                  "tests/providers/test_crossref_parse.py"],
    },
    # The modules added since the first mutation check (issue 28), each with in-process tests.
    "addresses": {
        "file": "src/litsearch/net/addresses.py", "module": "litsearch.net.addresses",
        "tests": ["tests/net/test_addresses.py"],
    },
    "redirects": {
        "file": "src/litsearch/net/redirects.py", "module": "litsearch.net.redirects",
        "tests": ["tests/net/test_redirects.py"],
    },
    "fulltext_limits": {
        "file": "src/litsearch/fulltext/limits.py", "module": "litsearch.fulltext.limits",
        "tests": ["tests/fulltext/test_section_rules.py", "tests/fulltext/test_sections_and_limits.py"],
    },
    "fulltext_choice": {
        "file": "src/litsearch/fulltext/choice.py", "module": "litsearch.fulltext.choice",
        "tests": ["tests/fulltext/test_choice.py"],
    },
    "zotero_matching": {
        "file": "src/litsearch/zotero/matching.py", "module": "litsearch.zotero.matching",
        "tests": ["tests/zotero/test_library_matching.py", "tests/zotero/test_zotero_items.py"],
    },
    "zotero_items": {
        "file": "src/litsearch/zotero/items.py", "module": "litsearch.zotero.items",
        "tests": ["tests/zotero/test_zotero_item_fields.py", "tests/zotero/test_zotero_items.py"],
    },
    "paging": {
        "file": "src/litsearch/mcp_server/paging.py", "module": "litsearch.mcp_server.paging",
        "tests": ["tests/mcp_server/test_paging.py"],
    },
    "cursors": {
        "file": "src/litsearch/mcp_server/cursors.py", "module": "litsearch.mcp_server.cursors",
        "tests": ["tests/mcp_server/test_cursor_signing.py"],
    },
    "rank": {
        "file": "src/litsearch/search/rank.py", "module": "litsearch.search.rank",
        "tests": ["tests/search/test_rank_rules.py", "tests/search/test_ranking.py", "tests/render/test_render.py"],
    },
    "relevance": {
        "file": "src/litsearch/search/relevance.py", "module": "litsearch.search.relevance",
        "tests": ["tests/search/test_relevance_rules.py", "tests/search/test_ranking.py"],
    },
    "openalex_filters": {
        "file": "src/litsearch/providers/openalex_entity_filters.py",
        "module": "litsearch.providers.openalex_entity_filters",
        # the explorer's aliases: a wrong key or value form silently changes what a list returns
        "tests": ["tests/providers/test_openalex_entity_filters.py"],
    },
    "openalex_costs": {
        "file": "src/litsearch/providers/openalex_costs.py", "module": "litsearch.providers.openalex_costs",
        # what a request costs decides whether the budget gate stops it on a spent day
        "tests": ["tests/providers/test_openalex_entity_filters.py"],
    },
    "deep_papers": {
        "file": "src/litsearch/deep/paper_store.py", "module": "litsearch.deep.paper_store",
        "tests": ["tests/deep/test_deep_session_file.py"],
    },
    "deep_session_file": {
        "file": "src/litsearch/deep/session_file.py", "module": "litsearch.deep.session_file",
        "tests": ["tests/deep/test_deep_session_file.py"],
    },
    "deep_stop": {
        "file": "src/litsearch/deep/stop.py", "module": "litsearch.deep.stop",
        # when a deep search stops (saturated, budget) and the yield curve the report shows
        "tests": ["tests/deep/test_deep_stop_rules.py", "tests/deep/test_deep_core.py"],
    },
    "deep_verdicts": {
        "file": "src/litsearch/deep/verdicts.py", "module": "litsearch.deep.verdicts",
        # which rows and papers a judge's LIST names, and the counts the stop rule reads
        "tests": ["tests/deep/test_deep_stop_rules.py", "tests/deep/test_deep_core.py",
                  "tests/deep/test_deep_inputs.py"],
    },
}

# Mutants no test can tell from the original, by target: the mutant's key (as the runner prints
# it) -> the one-line reason.
EQUIVALENT: dict[str, dict[str, str]] = {
    "deep_verdicts": {
        "apply | or -> and | if candidate.verdict is None or candidate.judged_round is None:":
            "a verdict without its round, or a round without its verdict, is refused on load and never made by "
            "apply: the two conditions agree on every state a session can be in",
        "recount | and -> or | if candidate.verdict is not None and candidate.judged_round is not None:":
            "a round without its verdict, or a verdict without its round, is refused on load and never made by "
            "apply",
    },
    "deep_session_file": {
        "_collector_paused | delete call gc.disable(...) | gc.disable()":
            "the collector only costs time while a session is read: the session read is the same",
        'document_text | False -> True | return json.dumps(document, ensure_ascii=False, separators=(",", ":"))':
            "ASCII escapes or UTF-8: the same JSON read back",
        'Write | \'str | bytes\' -> \'XX..XX\' | Write = Callable[[Path, "str | bytes"], None]  '
        "# the doors' atomic writer (runtime/files.py)":
            "the text of a type annotation",
    },
    "deep_papers": {
        'record_line | False -> True | ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\\n"':
            "ASCII escapes or UTF-8: the same JSON read back",
        "append | return ... -> return None | return False":
            "its one caller reads the answer as true or false",
    },
    "openalex_filters": {
        'count_filter | > -> >= | return f"{key}:>{low - 1}" if low > 0 else f"{key}:>-1"':
            'at least 0 is ">-1" by either branch',
        'count_filter | 0 -> -1 | return f"{key}:>{low - 1}" if low > 0 else f"{key}:>-1"':
            'at least 0 is ">-1" by either branch',
        'filter_keys | 1 -> 2 | return {part.split(":", 1)[0].strip().lower() for part in re.split(r",(?![^()]*\\))", expression) if ":" in part}':
            'splitting at the first colon or the first two gives the same name before it',
        'filter_expression | \'\' -> \'XX..XX\' | and not (value is False and known.get(alias, ("", ""))[1] == "flag")}':
            'the default serves an alias the list does not take, which is refused just after',
        'filter_expression | \'\' -> \'XX..XX\' #2 | and not (value is False and known.get(alias, ("", ""))[1] == "flag")}':
            'the default serves an alias the list does not take, which is refused just after',
        'filter_expression | \'\' -> \'XX..XX\' | taken = filter_keys(raw or "")':
            'the stand-in for no raw filter only has to hold no colon',
        '_entity_part | 1 -> 2 | kind = KINDS[value_kind.split(":", 1)[1]]':
            'a value kind has one colon: split once or twice is the same',
        'lists_filtering_by | \'\' -> \'XX..XX\' | if aliases.get(kind_name, ("", ""))[1] == f"entity:{kind_name}"]':
            'the default for a list without that alias only has to differ from entity:…',
        'lists_filtering_by | \'\' -> \'XX..XX\' #2 | if aliases.get(kind_name, ("", ""))[1] == f"entity:{kind_name}"]':
            'the default for a list without that alias only has to differ from entity:…',
        'semantic_refusals | \'\' -> \'XX..XX\' | return sorted(key for key in filter_keys(raw or "") if key.endswith(SEMANTIC_REFUSED))':
            'the stand-in for no raw filter only has to hold no colon',
    },
    "openalex_costs": {
        'ACTION_REQUESTS | \'x\' -> \'XX..XX\' | ACTION_REQUESTS = {"search": ("", {"search": "x"}), "list": ("", {}), "get": ("/1", {}),':
            "the words searched do not change a search's price",
        'ACTION_REQUESTS | \'x\' -> \'XX..XX\' | "find": ("", {"search.semantic": "x"})}':
            "the text of a semantic search does not change its price",
        'ACTION_REQUESTS | \'\' -> \'XX..XX\' #2 | ACTION_REQUESTS = {"search": ("", {"search": "x"}), "list": ("", {}), "get": ("/1", {}),':
            "a list with no parameters costs 1 on any path, priced entity or not",
        "SEARCH_FILTERS | 'title_and_abstract.search' -> 'XX..XX' | \"title_and_abstract.search\")":
            "a filter naming it also holds abstract.search, which is matched as a substring, as the proxy does",
        'request_credits | \'\' -> \'XX..XX\' | per_page = str(params.get("per_page") or params.get("per-page") or "")':
            'the stand-in for no page size only has to be no number',
        'request_credits | \'\' -> \'XX..XX\' | if any(kind in str(params.get("filter") or "") for kind in SEARCH_FILTERS):':
            'the stand-in for no filter only has to name no search filter',
    },
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
        "_TYPE_SPELLINGS | 'journal article' -> 'XX..XX' | \"article\": {\"journalarticle\", \"article\", "
        "\"journal article\", \"journal-article\"},":
            "\"journal article\" without its space is \"journalarticle\", which the set holds too",
        "matches | '' -> 'XX..XX' | return matches_venue(paper, filters.venue or \"\")":
            "matches() runs only for active filters (Filters.active), and an active venue filter is set",
        "matches | '' -> 'XX..XX' | return matches_author(paper, filters.author or \"\")":
            "matches() runs only for active filters (Filters.active), and an active author filter is set",
        "matches | 0 -> -1 #2 | return (paper.citation_count or 0) >= (filters.min_citations or 0)":
            "citation counts are never negative: >= 0 and >= -1 agree",
    },
    "atomic_writer": {
        "write_file_atomically | '.' -> 'XX..XX' | folder = path.parent if str(path.parent) else Path(\".\")":
            "a Path's parent is never the empty string (it is \".\"), so the fallback never runs",
        "_umask | 0 -> 1 | mask = os.umask(0)":
            "the value set only to read the old mask is replaced on the next line",
        "_umask | 0 -> -1 | mask = os.umask(0)":
            "the value set only to read the old mask is replaced on the next line",
    },
    "redaction": {
        "Settings._secret_spellings | '' -> 'XX..XX' | forms = {secret, quote(secret, safe=\"\"), quote(secret), "
        "quote_plus(secret, safe=\"\"), quote_plus(secret),":
            "'X' is an unreserved character that quote() never encodes: safe='XX' is safe=''",
        "Settings._secret_spellings | '' -> 'XX..XX' #2 | forms = {secret, quote(secret, safe=\"\"), quote(secret), "
        "quote_plus(secret, safe=\"\"), quote_plus(secret),":
            "'X' is an unreserved character that quote_plus() never encodes: safe='XX' is safe=''",
    },
    "environment": {
        "_MAILTO_SAFE | \".!$&'*+-=^_`{|}~\" -> 'XX..XX' | _MAILTO_SAFE = \".!$&'*+-=^_`{|}~\"  "
        "# characters a mailto: local part may keep as they are":
            "'X' is unreserved: quote() keeps it whether or not it is listed as safe",
        "check_email | '@' -> 'XX..XX' | if not at or not local or not domain or any(char.isspace() for char in value) "
        "or \"@\" in domain:":
            "the domain comes after the last '@' (rpartition), so it never holds one",
        "proxy_secrets | 1 -> 2 | userinfo = url.split(\"://\", 1)[1].split(\"/\", 1)[0].rpartition(\"@\")[0]":
            "only the text up to the first '/' is kept, and a second '://' lies after it",
        "proxy_secrets | 1 -> 2 #3 | userinfo = url.split(\"://\", 1)[1].split(\"/\", 1)[0].rpartition(\"@\")[0]":
            "the first piece of a split is the same whatever the number of splits",
        "problems | '' -> 'XX..XX' | checks += [(name, value, check_key) for name in key_variables "
        "if (value := (env.get(name) or \"\").strip())]":
            "the stand-in for an unset key, 'XX', is a valid key: no problem is reported either way",
    },
    "bibtex_ris": {
        "_single_line | '' -> 'XX..XX' | return \" \".join(str(value).split()) if value not in (None, \"\") else \"\"":
            "an empty string that skips the test is joined to the same empty string",
    },
    "crossref_check": {
        "verify_many | False -> True | _verify_each(session, alone), return_exceptions=False)":
            "every lookup returns its failure as a value (ProviderError caught): nothing is left to raise",
        "title_similarity | or -> and | if not a or not b:":
            "one empty title gives a length ratio of 0, which the next test turns into 0.0 as well",
        "_title_candidates | '' -> 'XX..XX' | title = work_title(message) or \"\"":
            "_compare returns before asking for candidates when Crossref has no title",
        "_fetch_work | '/' -> 'XX..XX' | url = session.url(f\"{WORKS_PATH}/{id_in_path(doi, keep='/')}\")":
            "keep='XX/XX' still keeps '/', and 'X' is never encoded anyway",
        "_doi_prefix | 1 -> 2 | return doi.split(\"/\", 1)[0]":
            "the first piece of a split is the same whatever the number of splits",
    },
    "crossref_parse": {
        "jats_to_text.heading | 1 -> 0 | text = (plain_text(match.group(1)) or \"\").rstrip(\" :.\")":
            "plain_text drops the <title> tags that the whole match adds to the group",
        "_date_parts | 3 -> 4 | numbers = [number for part in parts[:3] if (number := as_int(part)) is not None]":
            "_iso_date, the only reader of these numbers, uses the first three",
        "_publication_date_parts | 3 -> 4 | for part in parts[:3]:":
            "the callers read the year and _iso_date, which uses the first three numbers",
        "_iso_date | 3 -> 4 | return \"-\".join([f\"{parts[0]:04d}\"] + [f\"{part:02d}\" for part in parts[1:3]])":
            "the date parts passed in are at most three",
    },
    "addresses": {
        "_local_use_readings | 0 -> 1 | return [ipaddress.IPv4Address(found) for found in readings if found] "
        "or [ipaddress.IPv4Address(0)]":
            "the stand-in for no reading only has to be no public host, which 0.0.0.1 is not either",
        "embedded_ipv4 | and -> or | if ip in _TEREDO and ip.teredo:":
            "ipaddress gives a teredo reading only inside 2001::/32, so `or` reads the same",
        "_RFC6052_LAYOUTS | 48 -> 49 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 48 -> 47 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 56 -> 57 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 56 -> 55 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 64 -> 65 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 64 -> 63 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "the prefix length names the layout; only its bit ranges are read",
        "_RFC6052_LAYOUTS | 72 -> 71 #3 | _RFC6052_LAYOUTS = {48: ((48, 64), (72, 88)), 56: ((56, 64), (72, 96)), 64: ((72, 104),)}":
            "bit 71 is the u octet's last, checked zero first: one more leading zero bit of the /64 reading",
        "is_public | 1 -> 2 | ip = ipaddress.ip_address(address.split(\"%\", 1)[0])":
            "the part before the first % is the same however often the rest is split",
    },
    "paging": {
        "largest_fit | 1 -> 2 | middle = (low + high + 1) // 2":
            "both round up inside (low, high] and halve it: the same answer in as many probes at worst",
    },
    "cursors": {
        "checked_arguments | 'arguments' -> 'XX..XX' | problems = \"; \".join(f\"{'.'.join(str(p) for p in item.get('loc', ())) "
        "or 'arguments'}: {item.get('msg')}\"":
            "the model is built from the tool's signature and given a dict: each error it raises names its field",
        "_b64 | '=' -> 'XX..XX' | return base64.urlsafe_b64encode(data).decode().rstrip(\"=\")":
            "also strips X, but a body ends in the encoding of '}' and a 16-byte tag's last character in A, Q, g or w",
        "_unb64 | drop unary - | return base64.urlsafe_b64decode(text + \"=\" * (-len(text) % 4))":
            "the decoder ignores padding past what it needs (3 '=' for 1), and a length of 1 mod 4 is invalid either way",
    },
    "fulltext_choice": {
        "PaperIds.of | 1 -> 2 | arxiv_id = doi.split(\"arxiv.\", 1)[1]":
            "an arXiv id holds no 'arxiv.', so a DOI with a second one gives no id either way",
        "Candidate | '' -> 'XX..XX' | identifier: str = \"\"":
            "the plan gives every candidate its identifier; the default is never used",
        "_already_planned | ' ' -> 'XX..XX' | urls = \" \".join(u for u in (location.landing_url, location.pdf_url) "
        "if u).lower()":
            "each URL starts with http, so no host pattern can run across the joint, whatever joins them",
        "_pmcid | '' -> 'XX..XX' | text = str(value or \"\").strip()":
            "the stand-in for no value only has to be no PMCID, which 'XXXX' is not either",
    },
    "zotero_matching": {
        # add_paper builds a Zotero item only to read its ids back: what add() ignores or reads as absent.
        "LibraryIndex.add_paper | 'version' -> 'XX..XX' | self.add({\"key\": key, \"version\": 0, \"collections\": [collection] if collection else [], \"title\": paper.title,":
            "the version it gives is 0, which is what add() reads when there is none",
        "LibraryIndex.add_paper | 'itemType' -> 'XX..XX' | \"itemType\": \"journalArticle\", \"DOI\": paper.doi or \"\", \"PMID\": paper.pmid or \"\",":
            "add() only refuses notes, attachments and annotations; no item type is read as a paper too",
        "LibraryIndex.add_paper | 'journalArticle' -> 'XX..XX' | \"itemType\": \"journalArticle\", \"DOI\": paper.doi or \"\", \"PMID\": paper.pmid or \"\",":
            "any type but note, attachment or annotation is read the same",
        "LibraryIndex.add_paper | '' -> 'XX..XX' | \"itemType\": \"journalArticle\", \"DOI\": paper.doi or \"\", \"PMID\": paper.pmid or \"\",":
            "the stand-in for no DOI only has to be no DOI, which 'XXXX' is not either",
        "LibraryIndex.add_paper | '' -> 'XX..XX' #2 | \"itemType\": \"journalArticle\", \"DOI\": paper.doi or \"\", \"PMID\": paper.pmid or \"\",":
            "the stand-in for no PMID only has to be no PMID, which 'XXXX' is not either",
        "LibraryIndex.add_paper | '' -> 'XX..XX' | \"extra\": f\"arXiv: {paper.arxiv_id}\" if paper.arxiv_id else \"\", \"date\": str(paper.year or \"\")})":
            "the stand-in for no arXiv id only has to hold no 'arXiv:' line, which 'XXXX' does not either",
        "LibraryIndex.add_paper | '' -> 'XX..XX' #2 | \"extra\": f\"arXiv: {paper.arxiv_id}\" if paper.arxiv_id else \"\", \"date\": str(paper.year or \"\")})":
            "the stand-in for no year only has to hold no year, which 'XXXX' does not either",
        "item_identities | 1 -> 0 | candidates.append((\"arxiv_id\", match.group(1)))":
            "the whole arxiv.org match is read to the same id: identity() takes an arXiv URL itself",
        "item_identities | 1 -> 0 | found.add((\"title\", f\"{title}|{year.group(1)}\"))":
            "the year pattern's look-arounds match nothing, so the whole match is the year",
    },
    "zotero_items": {
        "VENUE_FIELD | 'document' -> 'XX..XX' | \"preprint\": \"repository\", \"thesis\": \"university\", \"report\": \"institution\", \"document\": \"publisher\"}":
            "a paper is 'other' (a document) only when it has no journal, so a document's venue is always empty",
        "VENUE_FIELD | 'publisher' -> 'XX..XX' | \"preprint\": \"repository\", \"thesis\": \"university\", \"report\": \"institution\", \"document\": \"publisher\"}":
            "a paper is 'other' (a document) only when it has no journal, so a document's venue is always empty",
        "zotero_item | '' -> 'XX..XX' | VENUE_FIELD.get(item_type, \"\"): _venue(paper, item_type, arxiv_id),":
            "every type but book has a venue field, and 'XXXX' is no field of a book either",
    },
    "relevance": {
        "STOP_WORDS | '\\na about above after again ...' -> 'XX..XX' | STOP_WORDS = frozenset(\"\"\"":
            "adds the word 'XX', which no folded (lower-case) text holds",
        "Analyzer.terms | 0 -> -1 | return self.terms_of_many([folded])[0]":
            "a list of one: its first is its last",
        "_length_norms | 0 -> 0.1 | average = sum(lengths) / len(lengths) if lengths else 0.0":
            "with no lengths the list of norms is empty whatever the average",
        "_length_norms | 0 -> -0.1 | average = sum(lengths) / len(lengths) if lengths else 0.0":
            "with no lengths the list of norms is empty whatever the average",
        "_length_norms | 1 -> 1.1 | return [1.0] * len(lengths)":
            "an average of 0 means every field is empty: no term is found there, so the norm is never read",
        "_length_norms | 1 -> 0.9 | return [1.0] * len(lengths)":
            "an average of 0 means every field is empty: no term is found there, so the norm is never read",
        "title_matches | '' -> 'XX..XX' | folded_queries = {fold_title(query) for query in queries} - {\"\"}":
            "an empty query matches no title (ratio 0), and a folded query is lower case, never 'XXXX'",
    },
    "fulltext_limits": {
        "cut_text | // -> / | if position > max_chars // 3:":
            "for a whole position, being past a third and past the third rounded down are the same",
    },
    "rank": {
        "provider_relevance | > -> >= | if top and top > 0:":
            "top is not 0 here (the `top and` before), so at least 0 is more than 0",
        "citation_priors | 0 -> 0.1 | best = max(rates, default=0.0)":
            "the default is read only for an empty pool, whose list of priors is empty anyway",
        "citation_priors | 0 -> -0.1 | best = max(rates, default=0.0)":
            "the default is read only for an empty pool, whose list of priors is empty anyway",
        "why | 0 -> -1 | if terms.get(\"title_match\", 0) >= 1.0:":
            "a missing title match read as -1 or 0 is neither 1 nor more than 0",
        "why | 0 -> -1 | elif terms.get(\"title_match\", 0) > 0:":
            "a missing title match read as -1 or 0 is neither 1 nor more than 0",
        "sort_ranked.by_relevance | 0 -> 1 | return (-item.score, -item.relevance, -citations_of(item.paper), -(item.paper.year or 0)) + identity(item)": "no paper is dated year 1 or -1: a missing year read as 0, 1 or -1 sorts the same against any real year",
        "sort_ranked.by_relevance | 0 -> -1 | return (-item.score, -item.relevance, -citations_of(item.paper), -(item.paper.year or 0)) + identity(item)": "no paper is dated year 1 or -1: a missing year read as 0, 1 or -1 sorts the same against any real year",
        "sort_ranked | 0 -> 1 | -(i.paper.year or 0)) + identity(i))": "no paper is dated year 1 or -1: a missing year read as 0, 1 or -1 sorts the same against any real year",
        "sort_ranked | 0 -> -1 | -(i.paper.year or 0)) + identity(i))": "no paper is dated year 1 or -1: a missing year read as 0, 1 or -1 sorts the same against any real year",
        "sort_ranked | 0 -> 1 | return sorted(items, key=lambda i: (i.paper.year is None, -(i.paper.year or 0)) + by_relevance(i))": "undated papers are sorted last first; among them the year term is the same",
        "sort_ranked | 0 -> -1 | return sorted(items, key=lambda i: (i.paper.year is None, -(i.paper.year or 0)) + by_relevance(i))": "undated papers are sorted last first; among them the year term is the same",
    },
    "redirects": {
        "same_origin_as_any | return ... -> return None | return False":
            "read only as a condition (net/http.py), where None and False are the same",
    },
    "judge": {
        "authors_agree | or -> and | if not a.author_pool or not b.author_pool:":
            "a side without names has no surnames either, and the next test returns None for it",
        "authors_agree | 1 -> 0 | return found >= 1 and found * 2 >= len(shorter.surnames)  "
        "# half the shorter list, in any order":
            "with no surname found, found * 2 >= len fails on its own (the list is never empty here)",
        "_is_acronym_of | return ... -> return None | return False":
            "read only inside any(), where None and False are the same",
        "_folded_abstract | '' -> 'XX..XX' | folded = fold_plain(plain_text(text) or \"\")":
            "the stand-in for an abstract with no text is under 200 characters either way",
        "_abstracts_agree | or -> and | if not a.abstract or not b.abstract:":
            "a missing abstract folds to '', which the next test turns into None as well",
        "truncated_twin | '' -> 'XX..XX' | return fuzz.ratio(short, long[: len(short)]) >= 97 "
        "and long[len(short) : len(short) + 1] in (\"\", \" \")":
            "the longer title always has a character after the shorter one's length",
        "judge | or -> and | if not a.title or not b.title:":
            "a pair with one empty title scores 0 and no rule can join it: the result is None either way",
        "judge | and -> or | same_page = a.first_page is not None and a.first_page == b.first_page":
            "only an early exit: a pair on different pages below 85% reaches None further down as well",
        "judge | 1 -> 2 | near_year = a.year is None or b.year is None or abs(a.year - b.year) <= 1":
            "years two or more apart are vetoed before this line",
        "_refusal | return ... -> return None | return \"years differ\"":
            "years two or more apart are vetoed before a refusal is asked for",
        "_refusal | 'years differ' -> 'XX..XX' | return \"years differ\"":
            "years two or more apart are vetoed before a refusal is asked for",
        "_refusal | 'authors differ' -> 'XX..XX' | return \"authors differ\"":
            "a pair refused for its authors is never reported (reporting needs authors not False)",
    },
}
