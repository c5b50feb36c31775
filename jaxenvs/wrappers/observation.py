"""`FlattenObservation`: observations as one float32 vector (dicts and tuples concatenated)."""

from __future__ import annotations

from jaxenvs import spaces
from jaxenvs.environment import defaults_params
from jaxenvs.wrappers.transform import TransformObservation


class FlattenObservation(TransformObservation):
    """Observations as `spaces.flatten(obs)`, in `spaces.flatten_space`'s Box.

    A dict is laid out in sorted key order, as `jax.tree_util` orders a plain dict, whatever the
    order of the Dict space or of the observation (an `OrderedDict` too): the flattened space's
    bounds and the flattened values follow the same keys.

    Args:
        env: The env to wrap.

    Examples:
        >>> import jax, jaxenvs
        >>> from jaxenvs.wrappers import FlattenObservation
        >>> env, params = jaxenvs.make("Blackjack-v1")  # a Tuple of three Discrete
        >>> env = FlattenObservation(env)
        >>> env.observation_space(params).shape
        (3,)
        >>> obs, state = env.reset(jax.random.key(0), params)
        >>> obs.shape, obs.dtype
        ((3,), dtype('float32'))
    """

    def __init__(self, env):
        super().__init__(env, spaces.flatten)

    @defaults_params
    def observation_space(self, params=None):
        """The flattened observation space."""
        return spaces.flatten_space(self.env.observation_space(params))
