"""Environments, one file each, grouped by family."""
