"""The vocabulary a service is declared in: where it lives (base URL and the variable that
overrides it), its key and how the key travels, what a contact email does there, how fast it
may be called, how long its answers are cached, and what it can do.

The facts themselves are written once, in each service's own room
(``providers/<name>_declaration.py``, ``fulltext/declaration.py``, ``zotero/declaration.py``),
and listed by the registry (``providers/registry.py``). Config, the HTTP layer, ``doctor``, the
docs' provider table and the features read them from there; nothing else names a base URL or a
key variable.
"""

from __future__ import annotations

from dataclasses import dataclass

DAY = 86_400

# What a service can do, as the features ask for it (``Service.can``):
SEARCH = "search"  # a paper search (merged and ranked) …
WEB = "web"  # … or a web search, whose hits are listed apart from the papers
OR_QUERIES = "or_queries"  # the query variants fold into one query (boolean OR or a bag of words)
FILTERS = "filters"  # it applies search filters itself (the rest are applied after fetching)
LOOKUP = "lookup"  # one paper by its id (paper, snowball, network)
CITES = "cites"  # the papers a paper cites (its reference list)
CITED_BY = "cited_by"  # the papers citing a paper
REFERENCE_IDS = "reference_ids"  # the reference lists of many papers at once (library links)
NOTICES = "notices"  # retraction and correction notices about a paper
DOI_CHECK = "doi_check"  # whether a DOI exists and names the paper
OPEN_ACCESS = "open_access"  # the best free copy of a DOI
FULL_TEXT = "full_text"  # an article's full text
PREPRINTS = "preprints"  # can ask for preprints only, or none (--preprints / --no-preprints)
RETRACTIONS = "retractions"  # its records say when a paper is retracted (--exclude-retracted)
ZOTERO = "zotero"  # files papers in a Zotero library
LINKS = "links"  # deep search: a known record's references and citing papers, with their texts
RECOMMEND = "recommend"  # deep search: papers like a set of positive (and unlike negative) examples
SEMANTIC_SEARCH = "semantic_search"  # deep search: papers whose meaning is near a text
CAPABILITIES = (SEARCH, WEB, OR_QUERIES, FILTERS, LOOKUP, CITES, CITED_BY, REFERENCE_IDS, NOTICES, DOI_CHECK,
                OPEN_ACCESS, FULL_TEXT, PREPRINTS, RETRACTIONS, ZOTERO, LINKS, RECOMMEND, SEMANTIC_SEARCH)

# When ``--providers auto`` searches a service (search/plan.py names the topic words).
ALWAYS = "always"
BIOMEDICAL = "biomedical"
TECHNICAL = "technical"  # computing, maths, physics
ON_REQUEST = "on_request"  # searched only when named in --providers
AUTO_CHOICES = (ALWAYS, BIOMEDICAL, TECHNICAL, ON_REQUEST)


@dataclass(frozen=True)
class PacePolicy:
    """How fast one API may be called, as data.

    ``min_interval``: seconds between the starts of two requests.
    ``max_in_flight``: requests open at the same time.
    ``slows_after_429``: the API publishes no rate (``min_interval`` is a guess), so a 429
    doubles the interval for the rest of the run, and for every lit-search process on the
    machine for ``SLOWDOWN_MEMORY_SECONDS`` (net/shared_pace.py).
    """

    min_interval: float
    max_in_flight: int
    retries: int = 2
    slows_after_429: bool = False


@dataclass(frozen=True)
class Lane:
    """An endpoint with a pace of its own, kept on top of its service's: every request whose
    query names ``parameter`` goes through it, whoever sends it (the HTTP layer picks the lane
    from the request, so no caller can forget it)."""

    name: str
    parameter: str
    pace: PacePolicy


@dataclass(frozen=True)
class Key:
    """An API key: the environment variable that holds it and how it is sent.

    ``sent_as``: ``"query:<name>"`` (a query parameter), ``"header:<name>"`` or ``"bearer"``
    (``Authorization: Bearer <key>``). ``benefit``: what it buys, for the message when a request
    fails without it; ``statuses``: the answers that, without it, mean "the key would fix this".
    """

    variable: str
    sent_as: str
    benefit: str = ""
    where: str = ""  # where to get one, in a few words
    statuses: frozenset[int] = frozenset({401, 403, 429})

    def __post_init__(self) -> None:
        kind = self.sent_as.split(":", 1)[0]
        if kind not in ("query", "header", "bearer") or (kind != "bearer" and ":" not in self.sent_as):
            raise ValueError(f"{self.variable}: sent_as must be query:NAME, header:NAME or bearer")

    @property
    def parameter(self) -> str | None:
        """The query parameter that carries the key (None when it goes in a header)."""
        kind, _, name = self.sent_as.partition(":")
        return name if kind == "query" else None

    def params(self, value: str | None) -> dict[str, str]:
        return {self.parameter: value} if value and self.parameter else {}

    def headers(self, value: str | None) -> dict[str, str]:
        kind, _, name = self.sent_as.partition(":")
        if not value or kind == "query":
            return {}
        return {"Authorization": f"Bearer {value}"} if kind == "bearer" else {name: value}

    @property
    def where_sent(self) -> str:
        """In words, for the docs: "query api_key", "header x-api-key", "Authorization: Bearer"."""
        kind, _, name = self.sent_as.partition(":")
        return "Authorization: Bearer" if kind == "bearer" else f"{kind} {name}"


@dataclass(frozen=True)
class Email:
    """What the contact email (``LITSEARCH_EMAIL``) does at a service: sent as the query
    parameter ``parameter`` (always also in the User-Agent), ``required`` by the service, and
    ``benefit``, what it buys in words (for ``doctor``; "" when nothing)."""

    parameter: str | None = None
    required: bool = False
    benefit: str = ""


@dataclass(frozen=True)
class Service:
    """One service lit-search talks to, declared once in its own room.

    ``base_url`` (None for a service with no fixed host, such as publishers' open copies) is
    overridden by the environment variable ``url_variable``. ``pace`` is the pace without key or
    email; ``pace_with_key`` and ``pace_with_email`` apply when those are set (a key first).
    ``auto_choice``: when ``--providers auto`` searches it (None: never searched).
    ``optional``: a default command never calls it (doctor lists what it lacks as optional).
    """

    name: str
    label: str
    base_url: str | None
    url_variable: str | None
    pace: PacePolicy
    key: Key | None = None
    email: Email = Email()
    pace_with_key: PacePolicy | None = None
    pace_with_email: PacePolicy | None = None
    cache_ttl: float = DAY
    capabilities: frozenset[str] = frozenset()
    auto_choice: str | None = None
    optional: bool = False
    limits: str = ""  # its published limits, in one line (doctor)
    search_summary: str = ""  # what its search asks, in one sentence (scripts/<name>.py --help)
    max_query_chars: int | None = None  # longer queries are cut (the API refuses them)
    provider: bool = True  # a module providers/<name>.py implements it (providers.base.Provider)
    lanes: tuple[Lane, ...] = ()  # endpoints with a pace of their own, kept on top of the service's

    def __post_init__(self) -> None:
        unknown = set(self.capabilities) - set(CAPABILITIES)
        if unknown:
            raise ValueError(f"{self.name}: unknown capabilities {sorted(unknown)}")
        if self.auto_choice is not None and self.auto_choice not in AUTO_CHOICES:
            raise ValueError(f"{self.name}: unknown auto_choice {self.auto_choice!r}")
        if (self.base_url is None) != (self.url_variable is None):
            raise ValueError(f"{self.name}: a base URL and its variable go together")

    def can(self, capability: str) -> bool:
        return capability in self.capabilities

    @property
    def searchable(self) -> bool:
        """It can be named in --providers (a paper or web search)."""
        return self.auto_choice is not None and (self.can(SEARCH) or self.can(WEB))

    def lane(self, name: str) -> PacePolicy:
        """The pace of one of its lanes (KeyError for a lane it does not declare)."""
        return {lane.name: lane.pace for lane in self.lanes}[name]

    def lane_of(self, parameters: set[str]) -> str | None:
        """The lane a request with these query parameters goes through, if any."""
        return next((lane.name for lane in self.lanes if lane.parameter in parameters), None)

    def pace_for(self, has_key: bool, has_email: bool) -> PacePolicy:
        if has_key and self.pace_with_key is not None:
            return self.pace_with_key
        if has_email and self.pace_with_email is not None:
            return self.pace_with_email
        return self.pace
