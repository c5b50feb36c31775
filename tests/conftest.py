import os

# Several CPU devices for the sharding tests; must be set before JAX starts.
os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
