"""The project's lab: what only jaxenvs' own maintainers run, kept beside the library.

Nothing here is shipped in the wheel (`pyproject.toml` finds `jaxenvs*` only) and nothing in
`jaxenvs/` imports it. Each module is a command of its own, run from the repository's root:

- `python -m lab.fingerprints --pin [ID ...]`: re-pin behaviour fingerprints
  (`jaxenvs/fingerprints.json`); `make pin`.
- `python -m lab.export_check [ID ...]`: gymnasium's `check_env` on exported ids;
  `make export-check`.
- `python -m lab.audit_page`: run `jaxenvs audit` and write its measured table into
  `docs/audit.md`; `make audit-page`.

`tests/lab/` tests them in `make test`. docs/design.md ("The library and the lab") says why.
"""
