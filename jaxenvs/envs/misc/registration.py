"""Ids of this family, as data: `"module:Class"` strings, imported only by `make`."""

REGISTRATIONS: list[dict] = []
