"""The optional semantic re-ranker: a small sentence-embedding model (all-MiniLM-L6-v2, int8
ONNX) embeds the topic and the top of the lexical order, and the two orders are fused by
reciprocal-rank fusion. Installed with ``pip install 'lit-search[semantic]'``; the model is
fetched once, when asked (``lit-search doctor --install semantic``), or found in
``LITSEARCH_RERANK_MODEL``. Any failure keeps the lexical order (rerank.py says why)."""
