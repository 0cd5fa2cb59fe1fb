"""Tavily's declaration (web search): where it lives, its key, its pace."""

from ..core.services import ON_REQUEST, WEB, Key, PacePolicy, Service

SERVICE = Service(
    name="web",
    label="web search (Tavily)",
    base_url="https://api.tavily.com",
    url_variable="LITSEARCH_TAVILY_URL",
    key=Key("TAVILY_API_KEY", "bearer", benefit="set TAVILY_API_KEY to add web sources (--providers ...,web)",
            where="tavily.com (paid credits)"),
    pace=PacePolicy(min_interval=0.2, max_in_flight=2),
    capabilities=frozenset({WEB}),
    auto_choice=ON_REQUEST,
    optional=True,
    limits="optional (--providers ...,web); needs TAVILY_API_KEY; every search spends a credit of your plan",
    max_query_chars=400,  # Tavily refuses longer queries
)
SERVICES = (SERVICE,)
