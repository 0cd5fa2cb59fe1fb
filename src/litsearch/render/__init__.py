"""Everything shown to a person or the model: markup safety, the search table and JSON, one
paper, a citation network, the library listing and the dedupe report."""
