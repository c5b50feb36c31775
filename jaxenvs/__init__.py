"""jaxenvs: reinforcement-learning environments as pure JAX functions.

```python
env, params = jaxenvs.make("CartPole-v1")
obs, state = env.reset(key, params)
obs, state, reward, terminated, truncated, info = env.step(key, state, action, params)
```
"""

from jaxenvs import spaces, wrappers
from jaxenvs.environment import Environment, EnvParams, EnvState, defaults_params
from jaxenvs.registry import (
    EnvSpec,
    UnknownEnvError,
    make,
    make_vec,
    register,
    registered_envs,
    spec,
)
from jaxenvs.rollout import rollout

__version__ = "0.1.0"

# gymnasium.make("jaxenvs/<id>") once gymnasium is imported; gymnasium itself is not imported here
from jaxenvs.export import _gymnasium_hook

_gymnasium_hook.install()

__all__ = [
    "EnvParams",
    "EnvSpec",
    "EnvState",
    "Environment",
    "UnknownEnvError",
    "defaults_params",
    "make",
    "make_vec",
    "register",
    "registered_envs",
    "rollout",
    "spaces",
    "spec",
    "wrappers",
]
