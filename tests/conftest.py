import os

# Several CPU devices for the sharding tests; must be set before JAX starts.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")

# Hypothesis profiles: "ci" (the default: small, derandomized, what `make test` runs) and
# "dev" (HYPOTHESIS_PROFILE=dev: many more examples, random seeds, for a local run).
from hypothesis import HealthCheck, settings  # noqa: E402

_SLOW_OK = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture, HealthCheck.data_too_large]
settings.register_profile("ci", max_examples=8, deadline=None, derandomize=True, suppress_health_check=_SLOW_OK)
settings.register_profile("dev", max_examples=100, deadline=None, suppress_health_check=_SLOW_OK)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
