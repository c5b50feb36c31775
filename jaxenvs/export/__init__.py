"""Ways out: gymnasium `Env` / `VectorEnv` (`export.gymnasium`), a Stable-Baselines3
`VecEnv` (`export.sb3`), a dm_env `Environment` (`export.dm_env`), videos (`export.video`),
and a gymnax `Environment` for code written against gymnax (`export.gymnax`);
`python -m jaxenvs.export.check` runs gymnasium's checker over the registered ids.

Each submodule imports its library when imported itself; this package imports none of them.
"""


def missing_extra(error: ImportError, extra: str, user: str) -> ImportError:
    """The `ImportError` an export module raises when its library is missing: it names the
    missing module and the extra that installs it."""
    from jaxenvs.extras import not_installed

    return not_installed(user, error.name, extra)
