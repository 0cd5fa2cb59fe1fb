"""The citation graph: one paper with its references and citing papers, a network around
seed papers, and the citation links among the library's papers."""
