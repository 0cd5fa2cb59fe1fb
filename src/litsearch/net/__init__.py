"""The network: one paced, retried, budgeted HTTP layer and the response cache behind it."""
