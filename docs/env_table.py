"""Print the README's environment table from the registry and docs/parity.md's verdicts.

python docs/env_table.py
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import jaxenvs

FAMILY_TITLES = {
    "classic": "Classic control",
    "toy_text": "Toy text",
    "minatar": "MinAtar",
    "bsuite": "bsuite",
    "misc": "gymnax misc",
    "box2d": "Box2D",
    "brax": "brax (adapter)",
    "jumanji": "jumanji (adapter)",
    "pgx": "pgx (adapter)",
    "gymnax": "gymnax (adapter)",
    "craftax": "Craftax (adapter)",
    "playground": "MuJoCo Playground (adapter)",
    "xminigrid": "XLand-MiniGrid (adapter)",
    "navix": "NAVIX (adapter)",
    "ale": "Atari (ALE adapter)",
}

# adapter families: one row each, the library named by its extra's module
ADAPTER_FAMILIES = ("brax", "jumanji", "pgx", "gymnax", "craftax", "playground", "xminigrid", "navix", "ale")


def verdicts() -> dict[str, str]:
    path = Path(__file__).with_name("parity.md")
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) == 7 and cells[0] not in ("env", "---"):
                out[cells[0]] = (
                    f"{cells[6]} ({cells[2]} transitions, worst error {cells[3]})" if cells[6] == "pass" else cells[6]
                )
    return out


def main() -> None:
    v = verdicts()
    by_family = defaultdict(list)
    for env_id in jaxenvs.registered_envs():
        by_family[jaxenvs.spec(env_id).family].append(env_id)
    print("| family | id | reference | parity |")
    print("|---|---|---|---|")
    for family, ids in by_family.items():
        title = FAMILY_TITLES.get(family, family)
        if family in ADAPTER_FAMILIES:
            ids_cell = f"{len(ids)} ids: `{ids[0]}` ... `{ids[-1]}`"
            library = jaxenvs.spec(ids[0]).extra or family
            checked = (
                "adapted, `make_vec` only; step for step against the library in tests"
                if jaxenvs.spec(ids[0]).batch_native
                else "adapted; `check_env` in tests"
            )
            print(f"| {title} | {ids_cell} | the {library} library | {checked} |")
            continue
        sweeps = [i for i in ids if i.startswith("bsuite/")]
        for env_id in ids:
            if env_id in sweeps:
                continue
            ref = jaxenvs.spec(env_id).reference or "-"
            alias = re.sub(r"-v[01]$", "", env_id)
            verdict = v.get(env_id) or (f"as `{alias}`" if alias != env_id and alias in v else "-")
            print(f"| {title} | `{env_id}` | {ref} | {verdict} |")
        if sweeps:
            experiments = sorted({s.split("/")[1] for s in sweeps})
            print(
                f"| {title} | {len(sweeps)} sweep ids `bsuite/<experiment>/<n>` ({len(experiments)} experiments) | "
                "`bsuite.load_from_id` (settings compared id by id in tests) | via the base envs |"
            )


if __name__ == "__main__":
    main()
