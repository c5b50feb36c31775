"""`python -m lab.power`: `lab.power.measure.main`."""

import sys

from lab.power.measure import main

sys.exit(main())
