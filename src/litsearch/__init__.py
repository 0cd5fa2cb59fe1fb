"""lit-search: one ranked, deduplicated table from several scholarly APIs."""

__version__ = "0.1.0"
