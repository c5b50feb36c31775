"""brax, jumanji and pgx tasks through the jaxenvs interface.

`jaxenvs.make("brax/ant")`, `make("jumanji/Snake-v1")`, `make("pgx/tic_tac_toe")`: each adapter
(`brax.py`, `jumanji.py`, `pgx.py`) imports its library when one of its ids is made, never at
`import jaxenvs`; a missing library gives an `ImportError` naming the extra to install. The ids
are listed as data in `registration.py`.
"""
