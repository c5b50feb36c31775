"""The power and false-alarm measurement of the parity verdicts (the project's lab, not the wheel).

`make power` runs it (`python -m lab.power`): `measure` runs the deliberate `mutants` and the
correct envs, and writes the section of docs/parity.md between `jaxenvs.parity.report.BEGIN`
and `END`.
"""
