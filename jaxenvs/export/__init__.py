"""Ways out of JAX: gymnasium `Env` / `VectorEnv` (`export.gymnasium`), a Stable-Baselines3
`VecEnv` (`export.sb3`), a dm_env `Environment` (`export.dm_env`) and videos (`export.video`);
`python -m jaxenvs.export.check` runs gymnasium's checker over the registered ids.

Each submodule imports its library when imported itself; this package imports none of them.
"""
