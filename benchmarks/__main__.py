"""``python -m benchmarks``: run the benchmark (see benchmarks/__init__.py, ``--help``)."""

import sys

from benchmarks.run import main

sys.exit(main())
