"""``python -m litsearch`` is the ``lit-search`` command."""

import sys

from .cli.dispatch import main

sys.exit(main())
