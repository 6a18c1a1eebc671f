"""``python -m giskard_nb.cli`` (the same as the ``giskard-nb`` script)."""

import sys

from giskard_nb.cli import main

sys.exit(main())
