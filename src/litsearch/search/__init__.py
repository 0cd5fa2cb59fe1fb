"""A search, step by step: plan the requests, run the providers, merge and rank, filter,
enrich the shown rows (pipeline.py joins the steps)."""
