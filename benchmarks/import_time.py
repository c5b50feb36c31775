"""What `import jaxenvs` (and `import gymnax`) add to `import jax`, in fresh interpreters.

    python benchmarks/import_time.py --repeats 7

Each measurement is a new process timing `import jax` and then the package, so caches of a
previous import do not count; the median of the repeats is reported.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CODE = """
import time
t0 = time.perf_counter(); import jax; t1 = time.perf_counter()
import {module}; t2 = time.perf_counter()
print(t1 - t0, t2 - t1)
"""


def measure(module: str, repeats: int) -> tuple[float, float]:
    jax_s, extra_s = [], []
    for _ in range(repeats):
        out = subprocess.run(
            [sys.executable, "-c", CODE.format(module=module)], capture_output=True, text=True, check=True
        )
        a, b = map(float, out.stdout.split())
        jax_s.append(a)
        extra_s.append(b)
    return statistics.median(jax_s), statistics.median(extra_s)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--repeats", type=int, default=7)
    args = p.parse_args(argv)
    print("| package | import jax (s) | added by the package (s) |")
    print("|---|---|---|")
    for module in ("jaxenvs", "gymnax"):
        try:
            jax_s, extra_s = measure(module, args.repeats)
        except subprocess.CalledProcessError:
            print(f"| {module} | - | not installed |")
            continue
        print(f"| {module} | {jax_s:.2f} | {extra_s:.2f} |")


if __name__ == "__main__":
    main()
