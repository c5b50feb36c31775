"""`python -m jaxenvs.cli`, as the `jaxenvs` command."""

import sys

from jaxenvs.cli import main

sys.exit(main())
