"""The built-in environments, grouped by family (classic, toy_text, minatar, bsuite, misc).

A family is a folder: `registration.py` declares its ids (one entry each), and each env is a
folder of its own, `<family>/<env>/`: `env.py` (state, params, dynamics, the class),
`render.py` (its drawing) and `parity.py` (its `ParitySpec`). Code a family shares sits
beside them: `_common.py` (dynamics helpers), `_draw.py` (drawing helpers) and `_parity.py`
(the parity helpers its specs share, loaded only by the parity driver).
"""
