"""The bounds of a deep-search session: what the options may be, and what one round may spend."""

from __future__ import annotations

BATCH_RANGE = (1, 100)
MAX_JUDGED_RANGE = (1, 5_000)
ROUND_REQUESTS_RANGE = (5, 500)
MAX_REQUESTS_RANGE = (10, 100_000)
STOP_WINDOW_RANGE = (10, 1_000)
# Seconds a round may spend waiting for one provider's pace: a provider paced at 1 request/s
# (Semantic Scholar) is asked at most this many times in a round; the rest waits for the next.
ROUND_SECONDS = 30.0
# A round that leaves nothing to judge while its budget left leads waiting chases again at once,
# up to this many passes in all (each a round's budget): a step stays within the couple of
# minutes an MCP client waits for a tool; past it, the next step goes on chasing.
CHASE_PASSES = 3
PER_SEED = 100  # references, and citing papers, asked of each provider for one seed
RECOMMENDATIONS = 100  # papers asked of a "more like these" request
SEMANTIC_RESULTS = 50  # OpenAlex search.semantic answers at most 50
MAX_EXAMPLES = 100  # positive (and negative) papers sent to a recommendation request
MAX_POOL = 5_000  # candidates kept; beyond it, the least supported unjudged ones are set aside
SEMANTIC_TEXT_CHARS = 1_000  # the text sent to a semantic search (a URL stays under ~4 KB)


def check_options(options, named=lambda name: name) -> str | None:
    """What is wrong with ``options`` (deep/session.py Options), in words; None when fine.
    ``named`` gives an option's name from its field's (as a session file has it, by default)."""
    for name, (low, high) in (("batch", BATCH_RANGE), ("max_judged", MAX_JUDGED_RANGE),
                              ("round_requests", ROUND_REQUESTS_RANGE), ("max_requests", MAX_REQUESTS_RANGE),
                              ("stop_window", STOP_WINDOW_RANGE)):
        value = getattr(options, name)
        if type(value) is not int:  # a bool is not a count, "10" not a number
            return f"{named(name)} must be a whole number between {low} and {high:,}, not {value!r}"
        if not low <= value <= high:
            return f"{named(name)} must be between {low} and {high:,}, not {value!r}"
    if type(options.stop_yield) is not int or not 0 <= options.stop_yield < options.stop_window:
        return (f"{named('stop_yield')} must be between 0 and {named('stop_window')} - 1 ({options.stop_window - 1}), "
                f"not {options.stop_yield!r}")
    return None
