"""A new user's first minutes with the installed wheel (`make wheel-smoke`, in CI).

Run by the venv that installed the wheel with no extras, from outside the checkout: each step
prints its time, and any surprise exits non-zero naming the step.
"""

import os
import subprocess
import sys
import time

STARTED = time.perf_counter()
# the console script the wheel installed, beside this venv's python (the venv is not activated)
JAXENVS = os.path.join(os.path.dirname(sys.executable), "jaxenvs")


def step(name: str) -> None:
    print(f"[{time.perf_counter() - STARTED:6.1f} s] {name}", flush=True)


def run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(argv, capture_output=True, text=True, timeout=600)


def expect(ok: bool, what: str, got: object = "") -> None:
    if not ok:
        sys.exit(f"wheel smoke: {what}" + (f"; got: {got}" if got != "" else ""))


step("import jaxenvs")
import jax  # noqa: E402

import jaxenvs  # noqa: E402

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
expect("site-packages" in jaxenvs.__file__, "jaxenvs must come from the installed wheel", jaxenvs.__file__)
expect(not jaxenvs.__file__.startswith(here), "jaxenvs was imported from the checkout", jaxenvs.__file__)
package = os.path.dirname(jaxenvs.__file__)
for shipped in ("py.typed", "fingerprints.json", "__main__.py"):
    expect(os.path.exists(os.path.join(package, shipped)), f"the wheel lacks jaxenvs/{shipped}")

step("make and step CartPole-v1")
env, params = jaxenvs.make("CartPole-v1")
key = jax.random.key(0)
obs, state = env.reset(key, params)
obs, state, reward, terminated, truncated, info = jax.jit(env.step)(key, state, 1, params)
expect(obs.shape == (4,) and float(reward) == 1.0 and "discount" in info, "CartPole-v1's first step", (obs, reward))

step("jaxenvs --version, python -m jaxenvs --version")
version = f"jaxenvs {jaxenvs.__version__}"
for argv in ([JAXENVS, "--version"], [sys.executable, "-m", "jaxenvs", "--version"]):
    out = run(*argv)
    expect(out.returncode == 0 and out.stdout.strip() == version, f"{' '.join(argv[-3:])} prints {version!r}", out)

step("jaxenvs fingerprint CartPole-v1")
out = run(JAXENVS, "fingerprint", "CartPole-v1")
expect(out.returncode == 0 and "CartPole-v1" in out.stdout, "jaxenvs fingerprint CartPole-v1 exits 0", out)

step("a missing extra is named: make('brax/ant'), jaxenvs parity CartPole-v1")
try:
    jaxenvs.make("brax/ant")
except ImportError as e:
    expect("jaxenvs[brax]" in str(e), "make('brax/ant')'s ImportError names jaxenvs[brax]", e)
else:
    sys.exit("wheel smoke: make('brax/ant') worked without the brax extra")
out = run(JAXENVS, "parity", "CartPole-v1")
expect(out.returncode == 1, "jaxenvs parity without the references exits 1 (nothing checked)", out)
expect("jaxenvs[parity]" in out.stdout + out.stderr, "jaxenvs parity names the extra jaxenvs[parity]", out)

step(f"done: {version}, jax {jax.__version__}")
