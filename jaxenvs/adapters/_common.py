"""What the brax, jumanji and pgx adapters share.

- `import_library`: the library, or an `ImportError` naming the extra to install;
- `no_such_env`: the `ValueError` for an id the library does not have;
- `library_key`: the raw `uint32[2]` key the libraries were written for (they store keys in
  their states, and a typed key there would not survive `flax.serialization`);
- `strong` / `cast_like`: fixed, non-weak dtypes for every state leaf, so that `jit` traces a
  step once and `AutoReset`'s `lax.cond` sees the same types from reset and step;
- `space_for`: a `Box` for an array of a given shape and dtype;
- `float_obs` / `float_obs_space`: a physics library's observation (an array or a dict of
  them, as brax and MuJoCo Playground give) in float32, and its space;
- `LibraryParams` / `LibraryTruncatedState`: the params of an adapter whose library has
  params of its own, and a state that keeps the library's own truncation flag;
- `side_view`: the picture the brax and Playground adapters render (bodies and their links);
- `friction_scale` / `mass_scale` / `gravity_scale` and `scale_physics`: the per-episode physics
  of the brax and Playground adapters (their libraries' own domain randomisation swaps the
  physics model the same way);
- `AdapterEnvironment`: the id `<family>/<the library's id>`, truncation by the time limit or
  by the library's own flag, which each adapter keeps in its state, and `reset_to_level`'s clear
  error for a family whose library has no per-episode settings.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from flax import serialization, struct

from jaxenvs import rendering, spaces
from jaxenvs.environment import Environment, EnvParams, EnvState, resolve_params
from jaxenvs.extras import not_installed
from jaxenvs.levels import Level, level_fields
from jaxenvs.params import custom, positive, real

# An episode limit no counter reaches: the library's own end of episode applies.
NO_LIMIT = 2**31 - 1


def import_library(module: str, extra: str) -> ModuleType:
    """Import a library an adapter needs."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise not_installed(f"jaxenvs' {extra} adapter", e.name or module, extra) from e


def no_such_env(library: str, env_id: str, known: Iterable[str]) -> ValueError:
    """The `ValueError` for an id a library does not have, listing the ones it has."""
    return ValueError(f"{library} has no env {env_id!r}; it has: {', '.join(known)}")


def library_key(key: jax.Array) -> jax.Array:
    """The raw `uint32[2]` key the libraries were written for.

    They store keys in their states, and a typed key there would not survive
    `flax.serialization`.
    """
    if jnp.issubdtype(key.dtype, jax.dtypes.prng_key):
        return jax.random.key_data(key)
    return key


def strong(tree: Any) -> Any:
    """Every array leaf with its own dtype but no weak type (a weak leaf makes `jit` retrace)."""
    return jax.tree_util.tree_map(lambda x: jnp.asarray(x).astype(jnp.asarray(x).dtype), tree)


def space_for(shape: tuple[int, ...], dtype: Any) -> spaces.Box:
    """The unbounded `Box` of a shape and dtype (booleans: `{False, True}`)."""
    dtype = jnp.dtype(dtype)
    if dtype == jnp.bool_:
        return spaces.Box(False, True, shape=shape, dtype=jnp.bool_)
    return spaces.Box(-np.inf, np.inf, shape=shape, dtype=dtype)


def float_obs(obs: Any) -> Any:
    """An observation (an array or a dict of them) in float32, a dict's keys sorted."""
    if isinstance(obs, dict):
        return {k: jnp.asarray(v, jnp.float32) for k, v in sorted(obs.items())}
    return jnp.asarray(obs, jnp.float32)


def float_obs_space(shape: Any) -> spaces.Space:
    """The space of `float_obs(obs)`, from the shape of `obs`."""
    if isinstance(shape, dict):
        return spaces.Dict({k: space_for(v.shape, jnp.float32) for k, v in sorted(shape.items())})
    return space_for(shape.shape, jnp.float32)


def register_dataclass_serialization(tree: Any) -> None:
    """Teach `flax.serialization` the plain (chex) dataclasses found in `tree`.

    flax knows its own struct dataclasses, dicts, lists and named tuples; a library's
    `chex.dataclass` state would make `serialization.to_bytes` fail. Registration is global and
    idempotent; the handlers store each field by name.
    """
    seen: set[type] = set()

    def visit(node: Any) -> None:
        if dataclasses.is_dataclass(node) and not isinstance(node, type):
            ty = type(node)
            if ty not in seen and ty not in serialization._STATE_DICT_REGISTRY:
                seen.add(ty)
                names = [f.name for f in dataclasses.fields(node)]

                def to_state(x, names=names):
                    return {n: serialization.to_state_dict(getattr(x, n)) for n in names}

                def from_state(x, state, names=names):
                    restored = {n: serialization.from_state_dict(getattr(x, n), state[n]) for n in names}
                    return dataclasses.replace(x, **restored)

                serialization.register_serialization_state(ty, to_state, from_state)
            for f in dataclasses.fields(node):
                visit(getattr(node, f.name))
        elif isinstance(node, dict):
            for v in node.values():
                visit(v)
        elif isinstance(node, (list, tuple)):
            for v in node:
                visit(v)

    visit(tree)


def library_params(value: Any) -> str | None:
    """What is wrong with `value` as a library's own params (the check of a `custom` params field)."""
    if value is None or dataclasses.is_dataclass(value) or isinstance(value, dict) or hasattr(value, "_fields"):
        return None
    return f"got a {type(value).__name__}, not a params structure"


def side_view(pos: jax.Array, parents: list[int], ground: Any = 0.0) -> jax.Array:
    """A `uint8[200, 200, 3]` side view of a chain of bodies: x to the right, z up, 40 pixels a metre.

    `pos` is float[n, 3] in metres (the view centred on the first body's x), `parents[i]` the body
    `i` is drawn joined to (negative: none), `ground` the ground's z, a quarter up the image.
    """
    size, scale = 200, 40.0
    px = size / 2 + (pos[:, 0] - pos[0, 0]) * scale
    pz = size * 0.75 - (pos[:, 2] - ground) * scale
    img = rendering.canvas(size, size)
    img = rendering.rect(img, 0, size * 0.75, size, size, (200, 200, 200))  # the ground
    for child, parent in enumerate(parents):
        if parent >= 0:
            img = rendering.line(img, px[parent], pz[parent], px[child], pz[child], 4, (60, 60, 160))
    for i in range(pos.shape[0]):
        img = rendering.circle(img, px[i], pz[i], 5, (200, 60, 60))
    return img


def friction_scale() -> Any:
    """A params field: every geom's sliding friction is multiplied by it (>= 0), per episode."""
    return real(1.0, 0.0, per_episode=True)


def mass_scale() -> Any:
    """A params field: every body's mass and inertia are multiplied by it (> 0), per episode."""
    return positive(1.0, per_episode=True)


def gravity_scale() -> Any:
    """A params field: gravity is multiplied by it (>= 0), per episode."""
    return real(1.0, 0.0, per_episode=True)


def scale_physics(model: Any, friction: Any, mass: Any, gravity: Any) -> Any:
    """A physics model with its friction, masses and gravity scaled.

    What brax's and Playground's domain randomisation change (`geom_friction`, `body_mass`,
    `body_inertia`, `opt.gravity` of an MJX `Model`); brax's `System`, an MJX `Model` too, has
    its own pipelines read the links' inertia and its `gravity`, scaled alike. At scales of 1
    every value is the model's own, bit for bit.

    Args:
        model: An MJX `Model` (Playground's `mjx_model`) or brax's `System`.
        friction: The factor of every geom's sliding friction (its first coefficient).
        mass: The factor of every body's mass and inertia.
        gravity: The factor of gravity.

    Returns:
        The model, scaled.
    """
    friction, mass, gravity = (jnp.asarray(x, jnp.float32) for x in (friction, mass, gravity))
    geom_friction = jnp.asarray(model.geom_friction)
    model = model.replace(
        geom_friction=geom_friction.at[:, 0].multiply(friction.astype(geom_friction.dtype)),
        body_mass=jnp.asarray(model.body_mass) * mass,
        body_inertia=jnp.asarray(model.body_inertia) * mass,
        opt=model.opt.replace(gravity=jnp.asarray(model.opt.gravity) * gravity),
    )
    if hasattr(model, "link"):  # brax's System: its spring, positional and generalized pipelines
        inertia = model.link.inertia
        link = model.link.replace(inertia=inertia.replace(mass=inertia.mass * mass, i=inertia.i * mass))
        model = model.replace(link=link, gravity=model.gravity * gravity)
    return model


@struct.dataclass
class LibraryParams(EnvParams):
    """No time limit of jaxenvs' own by default, and the library's own params.

    Attributes:
        max_steps_in_episode: jaxenvs' time limit; by default 2**31 - 1, none in practice (the
            library's own time limit still applies).
        env_params: The library's own params, a pytree (vmap-able where the library's are);
            None means the library's defaults.
    """

    max_steps_in_episode: int = NO_LIMIT
    env_params: Any = custom(None, library_params, "the library's own params (a pytree of arrays) or None")


@struct.dataclass
class LibraryTruncatedState(EnvState):
    """A state that keeps whether the library ended the last step by its own time limit.

    Attributes:
        library_truncated: Whether the library truncated the episode in the step into this
            state (bool scalar; False after reset).
    """

    library_truncated: jax.Array = False


class AdapterEnvironment(Environment):
    """An `Environment` over another library's task.

    Its id is `<family>/<the library's id>`: a subclass sets `family`, its constructor
    `_env_id` (checked by `_set_env_id` where the library lists its ids). Its episode is
    truncated by `params.max_steps_in_episode` (the base class) or by the library itself: a
    subclass whose library reports truncations keeps that flag in its state's
    `library_truncated` field (as `LibraryTruncatedState` does), or overrides
    `library_truncated(state)`.

    Attributes:
        family: The jaxenvs family of the adapter's ids (`"navix"` for `navix/<id>`).
        settings_note: Added to the error for a level with settings on an env without
            per-episode settings (where others of the family have some).
    """

    family: str = ""
    settings_note: str = ""
    _env_id: str = ""  # the library's id of the env

    @property
    def name(self) -> str:
        """The jaxenvs id (`<family>/<the library's id>`)."""
        return f"{self.family}/{self._env_id}"

    def _set_env_id(self, env_id: str, known: Iterable[str], library: str = "") -> None:
        """Take `env_id` as the library's id of this env; `no_such_env` if `known` lacks it."""
        known = list(known)
        if env_id not in known:
            raise no_such_env(library or self.family, env_id, known)
        self._env_id = env_id

    def library_truncated(self, state: Any) -> jax.Array:
        """The library's own truncation of the episode `state` belongs to.

        Args:
            state: The env's state.

        Returns:
            A bool scalar: the state's `library_truncated` field; False for a state without one.
        """
        return jnp.asarray(getattr(state, "library_truncated", False))

    def truncation(self, state: Any, params: Any) -> jax.Array:
        """The time limit or the library's own truncation.

        Args:
            state: The state the step reached.
            params: The env's params.

        Returns:
            A bool scalar.
        """
        return jnp.logical_or(super().truncation(state, params), self.library_truncated(state))

    @property
    def family_name(self) -> str:
        """The family of the id (`"navix"` for `navix/<id>`), for messages."""
        return self.family or self.name.partition("/")[0]

    def reset_to_level(self, key: jax.Array, level: Level, params: Any = None) -> tuple[Any, Any]:
        """Start an episode from a level (`Environment.reset_to_level`).

        A family whose library has nothing that varies per episode declares no per-episode
        params fields; a level that sets one is then an error that says so and names what a
        level of this family can be: a start state.

        Args:
            key: A JAX PRNG key.
            level: A `jaxenvs.levels.Level`.
            params: The env's params; None means `default_params`.

        Returns:
            `(obs, state)`.

        Raises:
            ValueError: The level has settings and this env's params declare no per-episode field.
            TypeError, ValueError: As `Environment.reset_to_level`.
        """
        resolved = resolve_params(self, params)
        settings = level.settings if isinstance(level, Level) else None
        if isinstance(settings, dict) and settings and not level_fields(resolved):
            raise ValueError(
                f"{self.name}: this {self.family_name} env has no per-episode settings{self.settings_note} "
                f"(a level cannot set {', '.join(map(repr, settings))}); its levels are start states, "
                "Level(state=s), s a state of this env (from its reset or step)"
            )
        return super().reset_to_level(key, level, params)


def rebuild(cls: type, args: tuple, kwargs: dict) -> Any:
    """How an adapter is unpickled: `cls(*args, **kwargs)`.

    An adapter holds library modules and compiled library envs, which do not pickle; its
    constructor arguments do.
    """
    return cls(*args, **kwargs)
