"""Transitions as data: one row per step, numpy arrays (`Transitions`), and row helpers."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import numpy as np

State = dict[str, Any]


def stack_rows(items: Sequence[Any]) -> Any:
    """Pytrees of one row each (states, observations, draws) stacked into one of numpy arrays.

    Args:
        items: pytrees of the same structure.

    Returns:
        The pytree whose every leaf stacks the items' leaves along a new first axis.
    """
    return jax.tree_util.tree_map(lambda *xs: np.stack([np.asarray(x) for x in xs]), *items)


def take_rows(tree: Any, rows: Any) -> Any:
    """Some rows of every leaf of a pytree of arrays.

    Args:
        tree: a pytree of arrays with the same first axis.
        rows: indices or a boolean mask along it.

    Returns:
        The pytree of numpy arrays holding those rows.
    """
    return jax.tree_util.tree_map(lambda x: np.asarray(x)[rows], tree)


@dataclasses.dataclass
class Transitions:
    """Reference transitions, as numpy arrays with one row per step.

    Args:
        states: the state before each step, `{field: array}`.
        actions: the actions.
        next_states: the state after each step, `{field: array}`.
        obs: the observations (a pytree of arrays).
        rewards: the rewards (float64).
        terminated: the `terminated` flags.
        truncated: the `truncated` flags.
        episode: numbers the episodes of a stream (a new number after every reset).
        info: the info entries every step had.
        draws: the random draws recorded per step (None where they are not recorded).
    """

    states: State
    actions: np.ndarray
    next_states: State
    obs: Any
    rewards: np.ndarray
    terminated: np.ndarray
    truncated: np.ndarray
    episode: np.ndarray
    info: State = dataclasses.field(default_factory=dict)
    draws: list[Any] | None = None

    def __len__(self) -> int:
        return len(self.actions)

    @classmethod
    def from_steps(cls, state: State, action: Any, next_states: State, out: tuple) -> Transitions:
        """`n` steps from one state.

        Args:
            state: the state every step started from.
            action: the action every step took.
            next_states: the `n` states after the steps, `{field: array}`.
            out: a vmapped step's `(obs, reward, terminated, truncated, info)`, as numpy.

        Returns:
            The `n` transitions, numbered as `n` episodes.
        """
        obs, reward, terminated, truncated, info = out
        n = len(np.asarray(reward))
        return cls(
            {k: np.repeat(np.asarray(v)[None], n, axis=0) for k, v in state.items()},
            np.repeat(np.asarray(action)[None], n, axis=0),
            next_states,
            obs,
            np.asarray(reward, np.float64),
            np.asarray(terminated, bool),
            np.asarray(truncated, bool),
            np.arange(n),
            dict(info) if isinstance(info, Mapping) else {},
        )

    def state_at(self, i: int, after: bool = False) -> State:
        """The state of one row.

        Args:
            i: the row.
            after: the state after the step (`next_states`) instead of before it.

        Returns:
            `{field: value}`.
        """
        return {k: v[i] for k, v in (self.next_states if after else self.states).items()}

    def _rows(self) -> dict[str, Any]:
        """The fields with one row per step (all but `draws`)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "draws"}

    def __add__(self, other: Transitions) -> Transitions:
        shifted = dataclasses.replace(other, episode=other.episode + (self.episode.max() + 1 if len(self) else 0))
        common = [k for k in self.info if k in other.info]  # info entries both have
        both = [dict(t._rows(), info={k: t.info[k] for k in common}) for t in (self, shifted)]
        draws = None if self.draws is None or other.draws is None else self.draws + other.draws
        return Transitions(**jax.tree_util.tree_map(lambda x, y: np.concatenate([x, y]), *both), draws=draws)

    def select(self, keep: Sequence[int] | np.ndarray) -> Transitions:
        """Some rows.

        Args:
            keep: the rows' indices, or a boolean mask.

        Returns:
            The transitions of those rows, in that order.
        """
        keep = np.asarray(keep)
        if keep.dtype == bool:
            keep = np.flatnonzero(keep)
        draws = None if self.draws is None else [self.draws[i] for i in keep]
        return Transitions(**take_rows(self._rows(), keep), draws=draws)
