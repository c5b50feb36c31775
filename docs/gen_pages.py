"""Generate the documentation pages that are read off the code: docs/envs.md (the env catalogue,
from the registry) and docs/gymnax.md (every id whose settings differ from gymnax's
same-named id, with the overrides that reproduce gymnax's, computed by building both).

    python docs/gen_pages.py            # both pages (the adapters' ids need their libraries)
    python docs/gen_pages.py --check    # exit 1 if a committed page is out of date

The adapters' spaces are read by building each env (every library installed: a few minutes);
an id that cannot be built here (`jaxenvs.registry.availability`: its library missing, its
construction downloading data) is not built, and its row says why; an id whose data is
missing when built says so too.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import logging
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import numpy as np

import jaxenvs
from jaxenvs.registry import BROKEN_UPSTREAM, availability, representatives

sys.path.insert(0, str(Path(__file__).parent))
from env_table import ADAPTER_FAMILIES, FAMILY_TITLES  # noqa: E402

DOCS = Path(__file__).parent

# gymnax names some settings differently; (gymnax's field -> ours)
GYMNAX_FIELD_ALIASES = {"ramping": "difficulty_ramping"}
# settings gymnax does not have, and the value of ours that means "as gymnax does":
# gymnax's MinAtar games have no sticky actions
GYMNAX_ABSENT_SETTINGS = {"sticky_action_prob": 0.0}


def _array(dtype, shape) -> str:
    return f"{dtype}[{', '.join(str(d) for d in shape)}]"


def space_text(space) -> str:
    """A space in a table cell, JAX-style: `float32[4]`, `float32[1] in [-1, 1]`, `Discrete(2)`."""
    if isinstance(space, jaxenvs.spaces.Box):
        low, high = np.unique(space.low), np.unique(space.high)
        uniform = len(low) == 1 and len(high) == 1 and (np.isfinite(low[0]) or np.isfinite(high[0]))
        bounds = f" in [{low[0]:g}, {high[0]:g}]" if uniform and space.dtype != np.bool_ else ""
        return _array(space.dtype, space.shape) + bounds
    if isinstance(space, jaxenvs.spaces.Dict):
        return "{" + ", ".join(f"{k}: {member_text(s)}" for k, s in space.spaces.items()) + "}"
    if isinstance(space, jaxenvs.spaces.Tuple):
        return "(" + ", ".join(member_text(s) for s in space.spaces) + ")"
    return repr(space)


def member_text(space) -> str:
    """A member of a Dict or Tuple space, shorter: dtype and shape only."""
    if isinstance(space, jaxenvs.spaces.Box):
        return _array(space.dtype, space.shape)
    return space_text(space)


@contextlib.contextmanager
def quiet():
    """Silence what the libraries print while building envs (deprecations, download retries)."""
    logging.disable(logging.CRITICAL)
    with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter("ignore")
        try:
            yield
        finally:
            logging.disable(logging.NOTSET)


def spaces_of(env_id: str) -> tuple[str, str]:
    """`(observation space, action space)` of `env_id` as table cells, or why it is not built."""
    available = availability(env_id)
    if available.install is not None:
        return f"needs `{available.install}`", "-"
    if not available.runnable and available.kind != BROKEN_UPSTREAM:  # its spaces build; its step fails
        return f"not built here: it {available.reason}", "-"
    try:
        with quiet():
            if jaxenvs.spec(env_id).batch_native:  # a batch of its own (ALE): one env's spaces
                env, params = jaxenvs.make_vec(env_id, 1)
            else:
                env, params = jaxenvs.make(env_id, autoreset=False)
            return space_text(env.observation_space(params)), space_text(env.action_space(params))
    except ImportError as e:
        return f"needs `{e}`", "-"
    except Exception as e:  # noqa: BLE001 (data that cannot be fetched here: the row says so)
        if "DataNotFound" in type(e).__name__ or "EntryNotFound" in type(e).__name__:
            return "needs data that was not at hand when this page was generated", "-"
        return f"not built here: {type(e).__name__}", "-"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def family_section(family: str, ids: list[str], parity: dict[str, str]) -> list[str]:
    title = FAMILY_TITLES.get(family, family)
    lines = [f"## {title}", ""]
    gifs = [i for i in ids if (DOCS / "img" / f"{i}.gif").exists()]
    if gifs:
        lines += [" ".join(f'![{i}](img/{i}.gif){{ width="160" }}' for i in gifs), ""]
    sweeps = [i for i in ids if i.startswith("bsuite/")]
    if family in ADAPTER_FAMILIES:
        lines += ["| id | observation space | action space | reference |", "|---|---|---|---|"]
    else:
        lines += [
            "| id | observation space | action space | reference | parity | transitions compared | worst error |",
            "|---|---|---|---|---|--:|--:|",
        ]
    for env_id in ids:
        if env_id in sweeps:
            continue
        obs, act = spaces_of(env_id)
        ref = jaxenvs.spec(env_id).reference or "-"
        if family in ADAPTER_FAMILIES:
            lines.append("| " + " | ".join(cell(c) for c in (f"`{env_id}`", obs, act, ref)) + " |")
            continue
        if env_id in parity:
            verdict, compared, error = parity[env_id]
        elif "-v" in env_id and env_id.rsplit("-v", 1)[0] in parity:
            verdict, compared, error = f"as `{env_id.rsplit('-v', 1)[0]}`", "", ""
        else:
            verdict, compared, error = "-", "-", "-"
        row = (f"`{env_id}`", obs, act, ref, verdict, compared, error)
        lines.append("| " + " | ".join(cell(c) for c in row) + " |")
    if sweeps:
        experiments = sorted({s.split("/")[1] for s in sweeps})
        lines += [
            "",
            f"Also {len(sweeps)} sweep ids `bsuite/<experiment>/<n>`, one per `bsuite.load_from_id` setting, "
            f"over {len(experiments)} experiments: " + ", ".join(f"`{e}`" for e in experiments) + ".",
        ]
    return lines + [""]


def parity_rows() -> dict[str, tuple[str, str, str]]:
    """`id -> (verdict, transitions compared, worst error)` from docs/parity.md's table."""
    out = {}
    for line in (DOCS / "parity.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] not in ("env", "---"):
            out[cells[0]] = (cells[6], f"{int(cells[2]):,}" if cells[2].isdigit() else cells[2], cells[3])
    return out


def envs_page(families: list[str] | None = None) -> str:
    parity = parity_rows()
    by_family: dict[str, list[str]] = defaultdict(list)
    for env_id in jaxenvs.registered_envs():
        by_family[jaxenvs.spec(env_id).family].append(env_id)
    lines = [
        "---",
        "hide:",
        "  - toc",
        "---",
        "",
        "# Environments",
        "",
        "<!-- generated by docs/gen_pages.py from the registry and docs/parity.md; do not edit -->",
        "",
        "Every registered id, its spaces (built with `jaxenvs.make(id)`), the reference it is checked "
        "against and the parity verdict from [the parity report](parity.md). GIFs are drawn by the "
        "env's own jit-able `render` (`jaxenvs render <id> --out x.gif`).",
        "",
        "| family | ids |",
        "|---|---|",
    ]
    for family, ids in by_family.items():
        anchor = FAMILY_TITLES.get(family, family).lower().replace(" ", "-").replace("(", "").replace(")", "")
        lines.append(f"| [{FAMILY_TITLES.get(family, family)}](#{anchor}) | {len(ids)} |")
    lines.append("")
    for family, ids in by_family.items():
        if families is None or family in families:
            lines += family_section(family, ids, parity)
            if family in ADAPTER_FAMILIES:
                sample = representatives(family) or None
                checked = (
                    "a batch of emulators, `make_vec` only: the tests compare its jitted rollouts step for "
                    "step with the library driven from Python ([Atari (ALE)](ale.md))"
                    if jaxenvs.spec(ids[0]).batch_native
                    else "every id passes `jaxenvs.testing.check_env` in the tests"
                    if sample is None
                    else "the tests run `jaxenvs.testing.check_env` on "
                    + ", ".join(f"`{i}`" for i in sample)
                    + " (every id runs the same adapter code)"
                )
                extra = jaxenvs.spec(ids[0]).extra or family
                lines[-1:-1] = [
                    f"Adapted from the {extra} library (the `{extra}` extra): {checked}; the library is "
                    "its own reference.",
                    "",
                ]
    return "\n".join(lines)


def _fields(params) -> dict:
    return {name: getattr(params, name) for name in params.__dataclass_fields__}


def _same(a, b) -> bool:
    a, b = np.asarray(a), np.asarray(b)
    return a.shape == b.shape and np.allclose(a.astype(float), b.astype(float))


def _show(value) -> str:
    value = np.asarray(value)
    return str(value.tolist() if value.ndim else value.item())


def gymnax_differences(env_id: str):
    """`(rows, overrides, remaining)` for one id present in both: the differing settings as
    `(setting, gymnax's, ours)`, the overrides of ours that reproduce gymnax's, and what still
    differs with them applied."""
    import gymnax

    with quiet():
        g_env, g_params = gymnax.make(env_id)
        env, params = jaxenvs.make(env_id, autoreset=False)
    g_fields, fields = _fields(g_params), _fields(params)
    g_fields = {GYMNAX_FIELD_ALIASES.get(k, k): v for k, v in g_fields.items()}
    rows, overrides = [], {}
    for name, g_value in g_fields.items():
        if name in fields and not _same(g_value, fields[name]):
            rows.append((name, _show(g_value), _show(fields[name])))
            overrides[name] = np.asarray(g_value).item() if np.asarray(g_value).ndim == 0 else g_value
    for name, value in GYMNAX_ABSENT_SETTINGS.items():
        if name in fields and name not in g_fields and not _same(fields[name], value):
            rows.append((name, f"none ({_show(value)})", _show(fields[name])))
            overrides[name] = value
    g_n, n = g_env.action_space(g_params).n if hasattr(g_env.action_space(g_params), "n") else None, None
    act = env.action_space(params)
    if isinstance(act, jaxenvs.spaces.Discrete):
        n = act.n
    if g_n is not None and n is not None and g_n != n:
        rows.append(("actions", str(g_n), str(n)))
        if "use_minimal_action_set" in fields:
            overrides["use_minimal_action_set"] = True
    g_obs, obs = g_env.observation_space(g_params).shape, env.observation_space(params).shape
    if tuple(g_obs) != tuple(obs):
        rows.append(("observation shape", str(tuple(g_obs)), str(tuple(obs))))
    remaining = []
    g_set, our_set = getattr(g_env, "action_set", None), getattr(env, "minimal_actions", None)
    if overrides.get("use_minimal_action_set") and g_set is not None and our_set is not None:
        if [int(a) for a in np.asarray(g_set)] != [int(a) for a in our_set]:
            remaining.append("action order")
    if overrides:
        env2, params2 = jaxenvs.make(env_id, autoreset=False, **overrides)
        fields2 = _fields(params2)
        remaining += [n for n, v in g_fields.items() if n in fields2 and not _same(v, fields2[n])]
        act2 = env2.action_space(params2)
        if g_n is not None and isinstance(act2, jaxenvs.spaces.Discrete) and act2.n != g_n:
            remaining.append("actions")
    elif rows:
        remaining = [r[0] for r in rows]
    return rows, overrides, remaining


def _call(env_id: str, overrides: dict) -> str:
    args = "".join(f"    {k}={v!r},\n" for k, v in overrides.items())
    return f'env, params = jaxenvs.make(\n    "{env_id}",\n{args})'


def gymnax_page() -> str:
    import gymnax

    ours = set(jaxenvs.registered_envs())
    differing, identical, absent, uncompared = [], [], [], []
    # gymnax's own ids: importing jaxenvs.export.gymnax adds every jaxenvs id as "jaxenvs/<id>"
    for env_id in [i for i in gymnax.registered_envs if not i.startswith("jaxenvs/")]:
        if env_id not in ours:
            absent.append(env_id)
            continue
        try:
            rows, overrides, remaining = gymnax_differences(env_id)
        except Exception as e:  # noqa: BLE001 (gymnax downloads MNIST when built; the page says so)
            uncompared.append((env_id, type(e).__name__))
            continue
        (differing if rows else identical).append((env_id, rows, overrides, remaining))
    lines = [
        "# Coming from gymnax",
        "",
        "<!-- generated by docs/gen_pages.py by building every id with gymnax.make and jaxenvs.make; do not edit -->",
        "",
        "jaxenvs's own interface has gymnax 1.x's shape: the same six-tuple step, "
        "`reset(key, params)` and `step(key, state, action, params)` with the same arguments, batched "
        "by `jax.vmap` the same way, so a training loop you write yourself against those calls runs "
        "on `jaxenvs.make(id)`. Code written *for gymnax* does not port by changing the import: "
        "rejax and Stoa test `isinstance` on gymnax's space classes, most clients unpack gymnax "
        "0.x's five-value step, gymnax's wrappers read its info keys and spaces, and evosax calls "
        "`gymnax.make` itself. For that code, `jaxenvs.export.gymnax.make(id, step_api=...)` gives a "
        'real gymnax `Environment`, and `gymnax.make("jaxenvs/<id>")` works once it is imported: '
        "see [From gymnax and its clients](from-gymnax.md).",
        "",
        "Either way, an id can name a different *setting* of the same "
        "game: jaxenvs's ids follow the reference implementation (MinAtar's own defaults, bsuite's "
        "own episode counts), gymnax's do not always. An agent tuned on gymnax and moved over "
        "unchanged trains on a different task without being told. Below, every id gymnax also has "
        "whose settings differ, and the overrides that give gymnax's settings back.",
        "",
        f"Compared: {len(differing) + len(identical)} ids in both; "
        f"{len(differing)} differ, {len(identical)} are the same.",
        "",
    ]
    for env_id, rows, overrides, remaining in differing:
        lines += [f"## `{env_id}`", "", "| setting | gymnax | jaxenvs |", "|---|---|---|"]
        lines += [f"| {cell(a)} | {cell(b)} | {cell(c)} |" for a, b, c in rows]
        lines.append("")
        if overrides:
            lines += ["gymnax's settings:", "", "```python", _call(env_id, overrides), "```", ""]
        if remaining:
            lines += [
                "Not reproducible by overrides (the two parametrise this differently): "
                + ", ".join(f"`{r}`" for r in remaining)
                + ".",
                "",
            ]
        else:
            lines += [
                "With these overrides every setting gymnax's params share with ours agree, and so do the "
                "action count and (for a minimal action set) the actions' order.",
                "",
            ]
        shapes = [r for r in rows if r[0] == "observation shape"]
        if shapes and np.prod(ast.literal_eval(shapes[0][1])) == np.prod(ast.literal_eval(shapes[0][2])):
            lines += [
                f"The observation keeps the reference's shape {shapes[0][2]} (gymnax's is {shapes[0][1]}): "
                "reshape it, or wrap the env in `FlattenObservation`, where a network expects gymnax's.",
                "",
            ]
        elif shapes:
            lines += [
                f"The observations differ in size ({shapes[0][2]} here, {shapes[0][1]} in gymnax): "
                "the id's own construction, not a params setting, decides it.",
                "",
            ]
    lines += ["## The same in both", "", ", ".join(f"`{i}`" for i, *_ in identical) + ".", ""]
    if absent:
        lines += ["## In gymnax only", "", ", ".join(f"`{i}`" for i in absent) + ".", ""]
    if uncompared:
        lines += [
            "## Not compared",
            "",
            ", ".join(f"`{i}` (gymnax.make raised {e} when this page was generated)" for i, e in uncompared) + ".",
            "",
        ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed page is out of date")
    args = parser.parse_args()
    pages = {"envs.md": envs_page(), "gymnax.md": gymnax_page()}
    stale = []
    for name, text in pages.items():
        path = DOCS / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {path}")
    if stale:
        print("out of date (run python docs/gen_pages.py): " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
