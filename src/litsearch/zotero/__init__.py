"""Zotero: papers as Zotero items, sent through the Web API or the desktop connector (`lit-search zotero push`)."""
