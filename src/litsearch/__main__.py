"""``python -m litsearch`` is the ``lit-search`` command."""

import sys

from .cli import main

sys.exit(main())
