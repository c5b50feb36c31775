"""Register the jaxenvs ids with gymnasium when gymnasium is imported, without importing it.

gymnasium >= 1.0 has no plugin entry points (`load_plugin_envs` is gone), and `import jaxenvs`
must not import gymnasium (it is optional and slow to import). So `install()` does one of:

- gymnasium already imported: register now;
- otherwise: put a finder at the front of `sys.meta_path` that, when `gymnasium` itself is
  imported, lets the normal finder locate it and wraps that module's `exec_module` so that
  `register_gymnasium_envs()` runs right after gymnasium's own `__init__` finished. The
  finder removes itself on first use; it looks at no other module name.

Only the standard library is imported here.
"""

from __future__ import annotations

import sys
import warnings

_TARGET = "gymnasium"


def _register() -> None:
    module = sys.modules.get("jaxenvs.export.gymnasium")
    if module is not None and not hasattr(module, "register_gymnasium_envs"):
        return  # it is importing gymnasium right now, and registers the ids once it is done
    try:
        from jaxenvs.export.gymnasium import register_gymnasium_envs

        register_gymnasium_envs()
    except Exception as e:  # never break `import gymnasium` for the user
        warnings.warn(f"jaxenvs: could not register its envs with gymnasium: {e!r}", stacklevel=2)


class _WhenGymnasiumImported:
    """A meta-path finder that only ever answers for `gymnasium`, then removes itself."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != _TARGET:
            return None
        self.uninstall()
        for finder in sys.meta_path:
            find_spec = getattr(finder, "find_spec", None)
            if find_spec is None:
                continue
            spec = find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        exec_module = loader.exec_module

        def exec_then_register(module):
            exec_module(module)
            _register()

        # the loader object is this module's own, so the patch touches nothing else
        loader.exec_module = exec_then_register
        return spec

    def uninstall(self) -> None:
        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass


def install() -> None:
    """Register the `jaxenvs/...` ids with gymnasium now if it is imported, else when it is.

    Idempotent: a second call adds no second finder to `sys.meta_path`.
    """
    module = sys.modules.get(_TARGET)
    if module is not None:
        if hasattr(module, "register"):
            _register()
        return
    if not any(isinstance(f, _WhenGymnasiumImported) for f in sys.meta_path):
        sys.meta_path.insert(0, _WhenGymnasiumImported())
