"""Deep search: a session of rounds in which a judge (the model, or a person) reads batches of
candidates and lit-search chases what was judged relevant, until the search is saturated."""
