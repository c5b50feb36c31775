"""Parity of `SpaceInvaders-MinAtar` against `minatar.Environment("space_invaders")`: the
game's translation, its policy and scrambled states, and its parity spec (`SPEC`)."""

from __future__ import annotations

import numpy as np

from jaxenvs.envs.minatar import _parity as m

INT_FIELDS = (
    "pos",
    "alien_dir",
    "enemy_move_interval",
    "alien_move_timer",
    "alien_shot_timer",
    "ramp_index",
    "shot_timer",
)
MAP_FIELDS = ("f_bullet_map", "e_bullet_map", "alien_map")


def read_state(env: object) -> dict[str, np.ndarray]:
    """The game's state named like `SpaceInvadersState`'s fields.

    Args:
        env: A `minatar.Environment("space_invaders")` (its game object is `env.env`).

    Returns:
        `{field: numpy value}`, the maps as `bool[10, 10]`.
    """
    maps = {k: np.asarray(getattr(env.env, k), bool) for k in MAP_FIELDS}
    return dict(m.read_attrs(env, INT_FIELDS, ("terminal",)), **maps)


def write_state(env: object, state: dict[str, object]) -> None:
    """Write a state read by `read_state` into the game (its inverse; the maps as MinAtar's
    float arrays).

    Args:
        env: A `minatar.Environment("space_invaders")`.
        state: `{field: value}` as `read_state` returns it.
    """
    m.write_attrs(env, state, INT_FIELDS, ("terminal",))
    for k in MAP_FIELDS:
        setattr(env.env, k, np.asarray(state[k], np.float64).copy())


def _hits_if_fired(env: object, horizon: int = 9) -> bool:
    """Whether firing now (then waiting) shoots an alien within `horizon` steps, played ahead."""
    return any(reward > 0 for reward, _ in m.lookahead(env, [5] + [0] * horizon))


def sharpshooter(env: object, rng: np.random.Generator) -> int:
    """A `Policy`: sidestep a bullet or alien about to land; fire when a copy of the game says
    the shot will hit; else walk toward the alien that shoots next (the lowest alien of the
    nearest column). It clears waves, so the block respawns and speeds up.

    Args:
        env: A `minatar.Environment("space_invaders")` (its game object is `env.env`).
        rng: Unused.

    Returns:
        The MinAtar action.
    """
    g = env.env
    danger = np.asarray(g.e_bullet_map[8], bool) | np.asarray(g.alien_map[9], bool)
    if danger[g.pos]:
        for step, action in ((-1, 1), (1, 3)):
            x = g.pos + step
            if 0 <= x <= 9 and not danger[x]:
                return action
        return 5
    if g.shot_timer == 0 and _hits_if_fired(env):
        return 5
    target = g._nearest_alien(g.pos)[1]
    if target == g.pos:
        return 0
    x, action = (g.pos - 1, 1) if target < g.pos else (g.pos + 1, 3)
    return 0 if danger[x] else action


def scramble(env: object, rng: np.random.Generator) -> None:
    """Write a random mid-game state into the game: from one alien to a dense block (never
    none, as in play), bullets anywhere, every timer and ramp level, the block moving either
    way.

    Args:
        env: A `minatar.Environment("space_invaders")`.
        rng: The generator to draw the state from.
    """
    kind = int(rng.integers(4))
    aliens = np.zeros((10, 10), bool)
    if kind == 0:
        aliens[rng.integers(9), rng.integers(10)] = True
    else:
        density = (0.0, 0.03, 0.3, 0.9)[kind]
        top = int(rng.integers(7))
        aliens[top : top + 4, 1:9] = rng.random((min(4, 10 - top), 8)) < density
        if not aliens.any():
            aliens[top, rng.integers(10)] = True
    interval = int(rng.integers(6, 13))
    write_state(
        env,
        dict(
            pos=int(rng.integers(10)),
            alien_dir=int(rng.choice([-1, 1])),
            enemy_move_interval=interval,
            alien_move_timer=int(rng.integers(0, 4)) if rng.random() < 0.5 else int(rng.integers(0, interval + 1)),
            alien_shot_timer=int(rng.integers(0, 11)),
            ramp_index=12 - interval,
            shot_timer=int(rng.integers(0, 6)),
            f_bullet_map=rng.random((10, 10)) < 0.05,
            e_bullet_map=rng.random((10, 10)) < 0.05,
            alien_map=aliens,
            terminal=False,
        ),
    )


def _rare_events(s: dict, a: int, s2: dict, r: float, t: bool, calls: list) -> dict[str, bool]:
    """The rare branches of the reference's step one transition took (`_parity.count_events`)."""
    died = t and not s["terminal"]
    shot = died and s["e_bullet_map"][8].any() and s["e_bullet_map"][8, s2["pos"]]
    return dict(
        wave_cleared=s2["alien_map"].sum() == 24 and s["alien_map"].sum() <= r,
        ramp=s2["ramp_index"] > s["ramp_index"],
        step_down=s["alien_move_timer"] == 0 and s2["alien_dir"] != s["alien_dir"],
        last_alien_moves=s["alien_move_timer"] == 0 and s["alien_map"].sum() == 1,
        killed_by_bullet=shot,
        killed_by_alien=died and not shot,
        kill=r > 0,
    )


GAME = m.Game("space_invaders", read_state, write_state, scramble, _rare_events)

# What SPEC checks:
# - every transition exact (all state fields, observation, reward, terminal) by injecting the
#   reference's state: a uniform random policy from resets, a sharpshooter that lines up under
#   the shooting alien, fires and sidesteps bullets (it clears waves, so the block respawns
#   and speeds up), and scrambled states (a few aliens left, bullets anywhere, every timer and
#   ramp level) with ramping on and off; the run fails if a rare event (wave cleared, ramp,
#   step down at a wall, the last alien moving every step, death by bullet and by alien)
#   never happened;
# - the game draws no random numbers (checked: a step that calls the reference's generator
#   fails, `_parity.Game`'s `draws_from_calls` left None);
# - random play and the sticky draw (`_parity.random_play`).
SPEC = m.spec(
    GAME,
    # the game's own policy (waves cleared, ramps), and scrambled states with ramping off too
    m.replayed(GAME, {"sharpshooter": (lambda n: 3 * n, m.with_noise(sharpshooter, 0.05))}, without_ramping=True),
    m.time_limit(GAME),
    # MinAtar's reset draws nothing (every wave starts alike): the whole reset state is compared
    m.RESET_STATE,
    m.random_play(GAME, 2000, 300, 2000),
)
