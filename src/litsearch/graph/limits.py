"""How far a citation network reaches: the caps that keep it fast and readable."""

# Each seed costs three Semantic Scholar requests, and S2 allows one per second.
MAX_SEEDS = 10
# Depth 2 fetches the references of this many of the seeds' references. Each costs
# another S2 request (a second each), and the most shared ones carry the lineage; more
# would mostly add distant papers.
MAX_EXPANDED_NODES = 10
# Depth 2 stops adding papers at this size: a larger graph is no longer readable as a
# picture, and the table of shared references does not need it.
MAX_NETWORK_NODES = 200
# A Mermaid flowchart stays legible (and renders quickly on GitHub) up to about this size.
MAX_MERMAID_NODES = 60
# Seeds fetched at once. S2 serves one request a second anyway; starting every seed at
# once would only spend the later seeds' time budgets waiting in S2's queue.
PARALLEL_FETCHES = 3
# Citing papers drawn per seed: the most cited this many of its citing list (which holds at
# least the most cited, graph/citing.py). More would bury the seeds' own links in the picture.
MAX_CITING_PER_SEED = 100
