"""Full text of legally open copies (`lit-search read`): where to find one, how to fetch it,
one parser per format (JATS XML, LaTeXML HTML, publisher HTML, PDF), and sections within limits."""
