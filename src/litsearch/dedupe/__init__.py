"""Finding the records that describe one paper, and merging them: used by every search
and by `lit-search dedupe` on reviewers' exports."""
