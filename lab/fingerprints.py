"""Pin the behaviour fingerprints: which ids are pinned, and the writing of `fingerprints.json`.

```bash
python -m lab.fingerprints --pin               # re-pin every id (and drop the rest)
python -m lab.fingerprints --pin CartPole-v1   # re-pin one, keeping the others
```

Taking and comparing a fingerprint is the library's (`jaxenvs.fingerprint`, `jaxenvs
fingerprint ID`); choosing and writing the pins is the project's.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from typing import Any

from jaxenvs.fingerprint import PINNED_PATH, fingerprint, pinned
from jaxenvs.registry import BUILT_IN_FAMILIES as FAMILIES

DATA_DEPENDENT = ("MNISTBandit-bsuite",)  # its images are the user's MNIST files


def fingerprint_ids() -> list[str]:
    """The ids that are pinned.

    Returns:
        Every built-in id except the bsuite sweep ids (settings of their base env),
        MNISTBandit (its images are the user's data), and the adapters (their behaviour is
        their library's), in registration order.
    """
    from jaxenvs.registry import registered_envs, spec

    return [
        env_id
        for env_id in registered_envs()
        if spec(env_id).family in FAMILIES and not env_id.startswith("bsuite/") and env_id not in DATA_DEPENDENT
    ]


def pin(env_ids: Sequence[str] | None = None) -> dict[str, Any]:
    """Take fingerprints and write them to `fingerprints.json`, under this jax version.

    Args:
        env_ids: the ids to re-pin, keeping the others; None re-pins every id of
            `fingerprint_ids()` (and drops the rest).

    Returns:
        What was written: `{"jax": version, "fingerprints": {id: hex}}`.
    """
    import jax

    data = pinned() if PINNED_PATH.exists() and env_ids is not None else {"fingerprints": {}}
    data["jax"] = jax.__version__
    for env_id in env_ids or fingerprint_ids():
        data["fingerprints"][env_id] = fingerprint(env_id)
    data["fingerprints"] = dict(sorted(data["fingerprints"].items()))
    PINNED_PATH.write_text(json.dumps(data, indent=1) + "\n")
    return data


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m lab.fingerprints --pin [ID ...]`; returns the exit status."""
    parser = argparse.ArgumentParser(prog="python -m lab.fingerprints", description="Pin the behaviour fingerprints.")
    parser.add_argument("--pin", nargs="*", metavar="ID", help="re-pin these ids (all when none is named)")
    args = parser.parse_args(argv)
    if args.pin is None:
        parser.error("nothing to do: --pin [ID ...] re-pins")
    print(json.dumps(pin(args.pin or None), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
