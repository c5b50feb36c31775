"""`python -m jaxenvs`: the `jaxenvs` command (`jaxenvs.cli.main`)."""

import sys

from jaxenvs.cli import main

if __name__ == "__main__":
    sys.exit(main())
