"""Ways out: gymnasium (`export.gymnasium`), Stable-Baselines3 (`export.sb3`), dm_env
(`export.dm_env`), gymnax (`export.gymnax`), JaxUED (`export.jaxued`) and videos (`export.video`).

Each submodule imports its library when imported itself; this package imports none of them.
"""


def missing_extra(error: ImportError, extra: str, user: str) -> ImportError:
    """The `ImportError` an export module raises when its library is missing.

    Args:
        error: The original `ImportError` (its `name` is the missing module).
        extra: The jaxenvs extra that installs it.
        user: The module that needs it, named in the message.

    Returns:
        An `ImportError` naming the missing module and the `pip install` that fixes it.
    """
    from jaxenvs.extras import not_installed

    return not_installed(user, error.name, extra)
