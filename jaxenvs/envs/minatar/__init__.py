"""The MinAtar games (Young & Tian 2019) in JAX: Asterix, Breakout, Freeway, Seaquest and
Space Invaders, each checked against the `minatar` package. Shared pieces in `_common.py`."""
