"""The network: one paced, retried, budgeted HTTP layer and the response cache behind it. It
knows policies (pace, key and email use, cache lifetime: read from the settings), never
providers."""
