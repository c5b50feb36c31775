"""gymnasium 1.3.0's own env and vector tests, run on the jaxenvs exports.

The test functions here are gymnasium's (its repository at tag v1.3.0, commit
53bf3e9a884783eb72ad3fc8b15780914c97c3e1: `tests/envs/test_envs.py`,
`tests/envs/test_action_dim_check.py`, `tests/envs/test_rendering.py` and `tests/vector/`),
vendored under gymnasium's MIT license (below), with gymnasium's env ids replaced by the
jaxenvs ids registered with gymnasium. Each file names what was changed and why.

Which ids: the env tests run over every built-in jaxenvs id registered with gymnasium (65:
classic control, toy text, MinAtar, bsuite with one id per sweep experiment, gymnax misc),
one id per family by default and the rest under the `slow` marker (`_utils.env_ids`). The
vector tests keep gymnasium's ids (`CartPole-v1`, `FrozenLake-v1`) as `jaxenvs/...`, and also
run with the jaxenvs vector env (`JaxVectorEnv`) as the vectoriser where a test takes one.
`AsyncVectorEnv` starts its workers with forkserver, one server process that imported jaxenvs
without starting JAX (`conftest.async_context`; gymnasium's default, fork, is refused by the
exports with a clear error: tests/export/test_pickle_and_processes.py, which also runs spawn).
Its tests run with shared memory by default and without it under `slow`.

Not vendored, because they cannot apply here:

- tests that exercise gymnasium's vectorisers, spaces or registration with gymnasium's own
  test envs (`GenericTestEnv`, custom spaces, slow envs: the timeouts, sub-env errors,
  observation modes, `test_vector_obs_action_spaces`, `test_final_obs_info`, the autoreset
  mode tests other than `test_make_vec_autoreset`, `tests/vector/utils`, `test_vector_env_info`,
  `tests/envs/registration`): they test gymnasium, with no env of ours in them;
- tests of gymnasium's own envs' features (`tests/envs/test_env_implementation.py`: LunarLander's
  heuristic and wind, CarRacing, BipedalWalker's hardcore terrain, FrozenLake's map generator,
  CliffWalking's slippery moves, reset options `low`/`high`; `tests/envs/toy_text`,
  `tests/envs/mujoco`, `tests/envs/functional`, `test_mujoco_action_dimensions`):
  jaxenvs envs reset from their params (`reset` refuses options) and their own tests cover
  their rules; `test_sync_vector_env_seed` needs BipedalWalker;
- `test_call_*`, `test_set_attr_*` and `test_vector_env_wrapper_attributes`, which read and set
  `gravity` on gymnasium's CartPole: a jaxenvs env's constants are its params, set when it is
  made (`gymnasium.make("jaxenvs/CartPole-v1", gravity=3.72)`) and read as
  `env.unwrapped.params.gravity`; an attribute set afterwards would change nothing.

`test_box_actions_out_of_bound` applies to the ids whose reference clips an out-of-range
action (Pendulum, MountainCarContinuous); for PointRobot, Reacher and Swimmer it is skipped:
their reference, gymnax, does not give the clipped action's observation either (PointRobot's
observation reports the action as given; Reacher and Swimmer apply it as given), and
tests/test_box_actions.py checks them against gymnax instead.

The MIT License

Copyright (c) 2016 OpenAI
Copyright (c) 2022 Farama Foundation

Permission is hereby granted, free of charge, to any person obtaining a copy
of this software and associated documentation files (the "Software"), to deal
in the Software without restriction, including without limitation the rights
to use, copy, modify, merge, publish, distribute, sublicense, and/or sell
copies of the Software, and to permit persons to whom the Software is
furnished to do so, subject to the following conditions:

The above copyright notice and this permission notice shall be included in
all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR
IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY,
FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE
AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER
LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING FROM,
OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER DEALINGS IN
THE SOFTWARE.
"""
