#!/usr/bin/env python3
"""Search Europe PMC alone and print normalized records as JSON. Run with --help."""

import sys

from _bootstrap import run_provider_script

if __name__ == "__main__":
    sys.exit(run_provider_script("europepmc"))
