"""What the Box2D envs' parity specs share: reading and placing pybox2d's bodies, building the
gymnasium reference, which steps are near the terrain, and whole episodes on both sides under
uniform random actions or the reference's scripted controller (`Episodes`, `episodes_under`).

Each spec injects a state by building the reference's world afresh (its own `write_state`) and
places the bodies here (`place_bodies`); our side starts each compared step cold
(`cold_world_state`). The body fields are named alike on both sides (`BODY_FIELDS`).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxenvs.envs.box2d import physics
from jaxenvs.parity import stats
from jaxenvs.parity.reference import episode_seeds

# The bodies' fields, `[B, ...]` in creation order, as both sides name them.
BODY_FIELDS = ("center", "angle", "linear_velocity", "angular_velocity")
# A step is near the terrain when a body is this near it (Box2D's distance, radii counted)
# before or after the step: Box2D's broad phase pairs shapes from 0.1 m (its fat bounding
# boxes' margin).
CONTACT_MARGIN = 0.1
# whole episodes run this many envs at a time (`jax_episodes`): one compile for every size
EPISODE_CHUNK = 64


def read_bodies(bodies: Sequence[Any]) -> dict[str, np.ndarray]:
    """pybox2d bodies' centres of mass, angles and velocities.

    Args:
        bodies: the bodies, in creation order.

    Returns:
        `{field: float64 array}` for `BODY_FIELDS`.
    """
    return {
        "center": np.array([tuple(b.worldCenter) for b in bodies], np.float64),
        "angle": np.array([b.angle for b in bodies], np.float64),
        "linear_velocity": np.array([tuple(b.linearVelocity) for b in bodies], np.float64),
        "angular_velocity": np.array([b.angularVelocity for b in bodies], np.float64),
    }


def place_bodies(bodies: Sequence[Any], state: dict[str, Any]) -> None:
    """Put pybox2d bodies where `state` has them, moving as it says, awake or not.

    Args:
        bodies: the bodies, in creation order (their fixtures made, so their centres of mass known).
        state: `BODY_FIELDS` and `awake`, as `read_bodies` reads them.
    """
    for b, body in enumerate(bodies):
        angle = float(state["angle"][b])
        c, s = np.cos(angle), np.sin(angle)
        local = body.localCenter
        center = state["center"][b]
        body.angle = angle
        body.position = (
            float(center[0] - (c * local[0] - s * local[1])),
            float(center[1] - (s * local[0] + c * local[1])),
        )
        body.linearVelocity = tuple(float(v) for v in state["linear_velocity"][b])
        body.angularVelocity = float(state["angular_velocity"][b])
        body.awake = bool(state["awake"])


def cold_world_state(world: physics.World, center, angle, linear_velocity, angular_velocity, awake):
    """Our side of an injected state: the bodies placed, no contacts, impulses or timers.

    Args:
        world: the env's physics world.
        center: `[B, 2]` centres of mass.
        angle: `[B]` angles.
        linear_velocity: `[B, 2]`.
        angular_velocity: `[B]`.
        awake: bool.

    Returns:
        The `physics.WorldState`, in the world's float dtype.
    """
    dtype = world.inv_mass.dtype
    angle = jnp.asarray(angle).astype(dtype)
    origin = jnp.asarray(center).astype(dtype) - physics.rotate(angle, world.local_center)
    return physics.init_state(world, origin, angle, linear_velocity, angular_velocity).replace(awake=awake)


def body_fields(state: physics.WorldState) -> dict[str, Any]:
    """Our bodies' fields and awake flag, named as `read_bodies` names the reference's.

    Args:
        state: a (batched) `physics.WorldState`.

    Returns:
        `{field: array}` for `BODY_FIELDS` and `awake`.
    """
    return {k: getattr(state, k) for k in BODY_FIELDS} | {"awake": state.awake}


def gymnasium_maker(env_id: str, settings: dict[str, Any]) -> Callable[[], Any]:
    """`() -> gymnasium env`: `gymnasium.make(env_id, **settings)` without the env checker,
    which warns on injected states.

    Args:
        env_id: gymnasium's id.
        settings: its constructor arguments.

    Returns:
        The maker.
    """

    def make() -> Any:
        import gymnasium

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return gymnasium.make(env_id, disable_env_checker=True, **settings)

    return make


def box2d_version() -> str:
    """pybox2d's version, for the reference's name.

    Returns:
        Its version string, "?" where it is not installed.
    """
    try:
        import Box2D

        return Box2D.__version__
    except (ImportError, AttributeError):
        return "?"


def reinject(ref: Any, rng: np.random.Generator) -> None:
    """`Reference.transitions`' scramble: the reference's own state, built afresh (cold).

    Args:
        ref: the reference.
        rng: unused.
    """
    ref.load(ref.state())


def near_terrain(ref: Any, data: Any, distance: Callable[[Any, dict[str, Any]], float]) -> np.ndarray:
    """The steps with a body within `CONTACT_MARGIN` of the terrain before or after them (the
    reference's states): a `FieldPolicy.in_distribution`, given the env's distance.

    Args:
        ref: the reference, whose world measures the distances.
        data: the transitions.
        distance: `(ref, state) -> ` the least distance of a body to the terrain at `state`.

    Returns:
        `bool[n]`, True where the step is near the terrain.
    """
    return np.array(
        [
            min(distance(ref, data.state_at(i)), distance(ref, data.state_at(i, True))) < CONTACT_MARGIN
            for i in range(len(data))
        ]
    )


# ---------------------------------------------------------------------------------------------
# whole episodes under a policy


@dataclasses.dataclass(frozen=True)
class Episodes:
    """How an env's whole episodes run on both sides (`episodes_under`).

    Args:
        name: the compiled loop's name (`jaxenvs.parity.collect.compiled`).
        label: the scripted controller's name in the checks' names.
        heuristic: the reference's controller in JAX, `(env, controller, obs) -> (controller,
            action)` (`env` the raw env).
        start: `() -> controller`, its state before an episode's first step.
        reference_controller: `(ref) -> (obs -> action)`, the reference's own controller, a
            fresh one for each episode.
        ending: `(terminated, last_reward) -> ` how each episode ended, strings.
        final: `(label, ours, theirs)`, a value at each episode's end to compare too: `ours`
            `(env, state) -> value` (a JAX state, traced), `theirs` `(ref) -> value`; or None.
    """

    name: str
    label: str
    heuristic: Callable[[Any, Any, jax.Array], tuple[Any, jax.Array]]
    start: Callable[[], Any]
    reference_controller: Callable[[Any], Callable[[Any], Any]]
    ending: Callable[[np.ndarray, np.ndarray], np.ndarray]
    final: tuple[str, Callable[[Any, Any], jax.Array], Callable[[Any], float]] | None = None


def reference_episodes(episodes: Episodes, ref: Any, num_episodes: int, seed: int, controller: bool, limit: int):
    """The reference's episodes, reset seeds `episode_seeds(seed, num_episodes)`, under its
    scripted controller (a fresh one per episode) or uniform random actions (the action space
    seeded with the episode's seed).

    Args:
        episodes: the env's episodes.
        ref: the reference.
        num_episodes: how many episodes.
        seed: the seed of the episodes' seeds.
        controller: the reference's controller (else uniform random actions).
        limit: each episode is cut here.

    Returns:
        `(lengths, returns, endings, finals)`, numpy arrays of `num_episodes` each (`finals`
        None without `episodes.final`).
    """
    lengths, returns, last, terminated, finals = [], [], [], [], []
    for episode_seed in episode_seeds(seed, num_episodes):
        obs = ref.reset(episode_seed)
        act = episodes.reference_controller(ref) if controller else None
        length, total, r, te = 0, 0.0, 0.0, False
        while length < limit:
            obs, r, te, tr, _ = ref.step(act(obs) if controller else ref.env.action_space.sample())
            length, total = length + 1, total + r
            if te or tr:
                break
        lengths.append(length)
        returns.append(total)
        last.append(r)
        terminated.append(te)
        finals.append(episodes.final[2](ref) if episodes.final else np.nan)
    ending = episodes.ending(np.asarray(terminated), np.asarray(last))
    return np.asarray(lengths), np.asarray(returns), ending, np.asarray(finals) if episodes.final else None


def jax_episodes(episodes: Episodes, env: Any, params: Any, num_episodes: int, seed: int, controller: bool, limit: int):
    """The first episode of `num_episodes` vmapped raw envs under `episodes.heuristic`
    (`controller`) or uniform random actions, each cut at `limit`.

    One compiled loop per env object serves both policies (`controller` is traced), every cut
    and every number of episodes (`EPISODE_CHUNK` envs at a time, each episode drawn from its
    own key).

    Args:
        episodes: the env's episodes.
        env: the raw JAX env.
        params: its params.
        num_episodes: how many envs (one episode each).
        seed: the seed of the envs' keys.
        controller: the scripted controller (else uniform random actions).
        limit: each episode is cut here.

    Returns:
        `(lengths, returns, endings, finals)`, numpy arrays of `num_episodes` each (`finals`
        None without `episodes.final`).
    """
    from jaxenvs.parity.collect import bucketed, compiled

    space = env.action_space(params)

    def run(keys, params, controller, limit):
        n = keys.shape[0]
        obs, state = jax.vmap(env.reset, in_axes=(0, None))(keys, params)
        scripted = jax.tree.map(lambda x: jnp.broadcast_to(x, (n,)), episodes.start())

        def step(k, s, o, c):
            c, action = episodes.heuristic(env, c, o)
            action = jnp.where(controller, action, space.sample(jax.random.fold_in(k, 1)))
            return *env.step(k, s, action, params), c

        def cond(carry):
            t, *_, done, _, _, _ = carry
            return (t < limit) & ~jnp.all(done)

        def body(carry):
            t, state, obs, scripted, done, length, ret, last = carry
            ks = jax.vmap(jax.random.fold_in, in_axes=(0, None))(keys, t + 1)
            o, s, r, te, _, _, c = jax.vmap(step)(ks, state, obs, scripted)
            alive = ~done
            keep = lambda new, old: jnp.where(alive.reshape((n,) + (1,) * (new.ndim - 1)), new, old)  # noqa: E731
            return (
                t + 1,
                jax.tree.map(keep, s, state),
                keep(o, obs),
                jax.tree.map(keep, c, scripted),
                done | (alive & te),
                length + alive,
                ret + jnp.where(alive, r, 0.0),
                jnp.where(alive, r, last),
            )

        zeros = jnp.zeros(n, jnp.float32)
        init = (jnp.int32(0), state, obs, scripted, jnp.zeros(n, bool), jnp.zeros(n, jnp.int32), zeros, zeros)
        _, state, _, _, done, length, ret, last = jax.lax.while_loop(cond, body, init)
        final = jax.vmap(lambda s: episodes.final[1](env, s))(state) if episodes.final else zeros
        return length, ret, last, done, final

    loop = compiled(env, episodes.name, lambda: jax.jit(run))
    keys = jax.random.split(jax.random.key(seed), num_episodes)
    chunked = bucketed(loop, (0, None, None, None), EPISODE_CHUNK)
    out = chunked(keys, params, jnp.asarray(controller), jnp.int32(limit))
    length, ret, last, done, final = (np.asarray(v) for v in out)
    return length, ret, episodes.ending(done, last), final if episodes.final else None


def episodes_under(episodes: Episodes, controller: bool, at_one: int, least: int) -> Callable:
    """Whole episodes on both sides, each cut at the registered time limit: length, return and
    `episodes.final` (`stats.mean_check`) and how they ended (`stats.chi_square_check`), under
    the reference's scripted controller or uniform random actions.

    Args:
        episodes: the env's episodes.
        controller: the reference's controller (else uniform random actions).
        at_one: episodes a side at scale 1.
        least: episodes at the smallest scale.

    Returns:
        A check function (`jaxenvs.parity.CheckFn`).
    """
    label = episodes.label if controller else "random policy"

    def check(ctx: Any) -> list:
        n, seed = ctx.size(at_one, least), ctx.seed + (7 if controller else 3)
        limit = int(ctx.params.max_steps_in_episode)
        env = getattr(ctx.env, "unwrapped", ctx.env)
        ref_len, ref_ret, ref_end, ref_final = reference_episodes(episodes, ctx.reference, n, seed, controller, limit)
        length, ret, end, final = jax_episodes(episodes, env, ctx.params, n, seed, controller, limit)
        checks = [
            stats.mean_check(f"{label} episode length", length, ref_len, seed),
            stats.mean_check(f"{label} episode return", ret, ref_ret, seed + 1),
        ]
        if episodes.final:
            checks.append(stats.mean_check(f"{label} {episodes.final[0]}", final, ref_final, seed + 2))
        return [*checks, *stats.chi_square_check(f"{label} episode ending", list(end), list(ref_end))]

    return check
