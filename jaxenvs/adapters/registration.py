"""Adapter ids, as data: `"module:attr"` strings, the libraries imported only by `make`."""

REGISTRATIONS: list[dict] = []
