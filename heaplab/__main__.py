"""``python -m heaplab``: the same as the ``heaplab`` console script."""

import sys

from heaplab.cli import main

sys.exit(main())
