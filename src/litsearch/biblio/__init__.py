"""Bibliographic files: reading CSV, RIS and BibTeX exports, writing BibTeX, RIS, CSL-JSON
and CSV, and choosing a format by name or file extension."""
