"""The vocabulary every room shares: records, identifiers, text, links, filters, settings, errors."""
