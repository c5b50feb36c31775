"""List the public callables whose docstrings are not complete Google style.

Usage: `python docs/check_docstrings.py FILE_OR_DIR [...]` (directories are searched for
`*.py`); prints one line per problem and exits 1 if there is any, 0 otherwise.

Public means what a user is shown: in a module whose path has no private part (`_packed.py`,
`_gymnasium_step.py` are the package's own), a module-level function or class whose name does
not start with `_` and, where the module declares `__all__`, is listed there; and the methods
and properties of such classes. A callable is complete when it has a docstring whose
`Args:` names every parameter (`self` and `cls` excluded; a class's are its `__init__`'s, or
its dataclass fields, which may be under `Attributes:` instead), which has `Returns:` (or
`Yields:`) if the body returns a value, and whose `Raises:` names every exception class the
body raises by name. Properties need a docstring only; setters and `@overload`s none. A method
without a docstring that overrides a documented method of a base class defined in the files
checked inherits its docstring (as `inspect.getdoc` and mkdocs' `griffe_inherited_docstrings`
do) and is complete; one whose docstring has no `Args:` section says what it changes and takes
its arguments and return value from the base's (mkdocs shows the base's docs beside it).
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

# class name -> (its base classes' names, the names of its methods that have a docstring),
# over every file checked (filled by `main` before any file is checked)
CLASSES: dict[str, tuple[list[str], set[str]]] = {}

SECTION = re.compile(r"^(\s*)(Args|Arguments|Parameters|Attributes|Returns|Yields|Raises):\s*$")
ENTRY = re.compile(r"^(\*{0,2}[\w.]+)\s*(\([^)]*\))?:")


def sections(doc: str) -> dict[str, list[str]]:
    """The Google-style sections of a docstring and the names their entries start with.

    Args:
        doc: The docstring, as `ast.get_docstring` returns it (dedented).

    Returns:
        A mapping from section title (`Args` for `Arguments` and `Parameters` too) to the names
        of its entries; a `Returns:` or `Yields:` section maps to `[]` when its text is free.
    """
    found: dict[str, list[str]] = {}
    lines = doc.splitlines()
    i = 0
    while i < len(lines):
        match = SECTION.match(lines[i])
        if not match:
            i += 1
            continue
        title = {"Arguments": "Args", "Parameters": "Args"}.get(match.group(2), match.group(2))
        indent = len(match.group(1))
        names = found.setdefault(title, [])
        i += 1
        entry_indent = None
        while i < len(lines):
            line = lines[i]
            if line.strip() and len(line) - len(line.lstrip()) <= indent:
                break
            if line.strip():
                depth = len(line) - len(line.lstrip())
                entry_indent = depth if entry_indent is None else entry_indent
                entry = ENTRY.match(line.strip())
                if depth == entry_indent and entry:
                    names.append(entry.group(1).lstrip("*").split(".")[-1])
            i += 1
    return found


def parameters(args: ast.arguments, *, method: bool) -> list[str]:
    """The names a docstring's `Args:` must list.

    Args:
        args: The function's arguments node.
        method: Whether the function is defined in a class (its first positional argument,
            `self` or `cls`, is then not listed; a `staticmethod` is handled by the caller).

    Returns:
        The parameter names, `*args` and `**kwargs` without their stars.
    """
    positional = [a.arg for a in args.posonlyargs + args.args]
    if method and positional:
        positional = positional[1:]
    names = positional + [a.arg for a in args.kwonlyargs]
    names += [a.arg for a in (args.vararg, args.kwarg) if a is not None]
    return names


def own_nodes(function: ast.AST):
    """The nodes of a function's body, not descending into nested functions, classes or lambdas.

    Args:
        function: A `FunctionDef` or `AsyncFunctionDef`.

    Yields:
        Every node in its body outside nested scopes.
    """
    scopes = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    stack = [node for node in function.body if not isinstance(node, scopes)]
    while stack:
        node = stack.pop()
        yield node
        stack += [child for child in ast.iter_child_nodes(node) if not isinstance(child, scopes)]


def raised_names(function: ast.AST) -> set[str]:
    """The exception classes a function raises by name (`raise ValueError(...)`).

    Args:
        function: A `FunctionDef` or `AsyncFunctionDef`.

    Returns:
        Their names; bare `raise` and raising a variable are not counted.
    """
    names = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            exc = node.exc.func if isinstance(node.exc, ast.Call) else node.exc
            if isinstance(exc, ast.Name) and exc.id[:1].isupper():
                names.add(exc.id)
            elif isinstance(exc, ast.Attribute):
                names.add(exc.attr)
    return names


def decorator_names(node: ast.AST) -> set[str]:
    """The last dotted part of each decorator's name (`struct.dataclass` gives `dataclass`).

    Args:
        node: A function or class definition.

    Returns:
        The names.
    """
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute):
            names.add(target.attr)
        elif isinstance(target, ast.Name):
            names.add(target.id)
    return names


def check_function(node: ast.AST, where: str, *, method: bool, overrides: bool = False) -> list[str]:
    """The problems of one public function or method.

    Args:
        node: Its definition.
        where: How problems name it (`file:line name`).
        method: Whether it is defined in a class.
        overrides: Whether it overrides a documented method of a base class (its `Args:` and
            `Returns:` may then be the base's).

    Returns:
        One line per problem.
    """
    decorators = decorator_names(node)
    if "setter" in decorators or "overload" in decorators:  # the property's docstring covers it
        return []
    doc = ast.get_docstring(node)
    if doc is None:
        return [f"{where}: no docstring"]
    if "property" in decorators or "cached_property" in decorators:  # an attribute, documented as one
        return []
    found = sections(doc)
    problems = []
    if overrides and "Args" not in found:
        unlisted = sorted(raised_names(node) - set(found.get("Raises", [])))
        return [f"{where}: Raises lacks {', '.join(unlisted)}"] if unlisted else []
    wanted = parameters(node.args, method=method and "staticmethod" not in decorators)
    missing = [name for name in wanted if name not in found.get("Args", [])]
    if missing:
        problems.append(f"{where}: Args lacks {', '.join(missing)}")
    nodes = list(own_nodes(node))
    generator = any(isinstance(n, (ast.Yield, ast.YieldFrom)) for n in nodes)
    returns = any(
        isinstance(n, ast.Return)
        and n.value is not None
        and not (isinstance(n.value, ast.Constant) and n.value.value is None)
        for n in nodes
    )
    if generator and "Yields" not in found and "Returns" not in found:
        problems.append(f"{where}: no Yields")
    elif returns and not generator and node.name != "__init__" and "Returns" not in found:
        problems.append(f"{where}: no Returns")
    unlisted = sorted(raised_names(node) - set(found.get("Raises", [])))
    if unlisted:
        problems.append(f"{where}: Raises lacks {', '.join(unlisted)}")
    return problems


def base_name(base: ast.expr) -> str:
    """The last dotted part of a base class expression (`environment.Environment` gives
    `Environment`; `Generic[T]` gives `Generic`).

    Args:
        base: The expression in the class statement.

    Returns:
        The name, or "" where there is none.
    """
    if isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ""


def collect_classes(tree: ast.Module) -> None:
    """Record every class of a module in `CLASSES`.

    Args:
        tree: The parsed module.
    """
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            documented = {
                n.name
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and ast.get_docstring(n) is not None
            }
            # an optional hook declared as an annotated attribute (`observe: Callable | None = None`)
            # and described in the class docstring's `Attributes:` documents the methods that fill it
            described = ast.get_docstring(node) or ""
            documented |= {
                n.target.id
                for n in node.body
                if isinstance(n, ast.AnnAssign)
                and isinstance(n.target, ast.Name)
                and re.search(rf"^\s+{n.target.id}:", described, re.M)
            }
            bases, known = CLASSES.get(node.name, ([], set()))
            CLASSES[node.name] = (bases + [base_name(b) for b in node.bases], known | documented)


def inherits_doc(bases: list[str], method: str) -> bool:
    """Whether some base class (at any depth) documents `method`.

    Args:
        bases: The names of a class's base classes.
        method: The method's name.

    Returns:
        True where a base in `CLASSES` has `method` with a docstring.
    """
    seen: set[str] = set()
    stack = list(bases)
    while stack:
        name = stack.pop()
        if name in seen or name not in CLASSES:
            continue
        seen.add(name)
        parents, documented = CLASSES[name]
        if method in documented:
            return True
        stack += parents
    return False


def check_class(node: ast.ClassDef, path: Path) -> list[str]:
    """The problems of one public class and its public methods.

    Args:
        node: Its definition.
        path: The file it is in.

    Returns:
        One line per problem.
    """
    where = f"{path}:{node.lineno} {node.name}"
    doc = ast.get_docstring(node)
    problems = [] if doc is not None else [f"{where}: no docstring"]
    found = sections(doc or "")
    init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
    if init is not None:
        init_found = sections(ast.get_docstring(init) or "")
        documented = set(found.get("Args", [])) | set(init_found.get("Args", []))
        missing = [name for name in parameters(init.args, method=True) if name not in documented]
        if missing:
            problems.append(f"{where}: Args lacks {', '.join(missing)}")
        init_raises = set(found.get("Raises", [])) | set(init_found.get("Raises", []))
        unlisted = sorted(raised_names(init) - init_raises)
        if unlisted:
            problems.append(f"{where}: Raises lacks {', '.join(unlisted)}")
    elif "dataclass" in decorator_names(node):
        fields = [
            n.target.id
            for n in node.body
            if isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name) and not n.target.id.startswith("_")
        ]
        documented = set(found.get("Args", [])) | set(found.get("Attributes", []))
        missing = [name for name in fields if name not in documented]
        if missing:
            problems.append(f"{where}: Attributes lacks {', '.join(missing)}")
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
            overrides = inherits_doc([base_name(b) for b in node.bases], item.name)
            if ast.get_docstring(item) is None and overrides:
                continue
            where = f"{path}:{item.lineno} {node.name}.{item.name}"
            problems += check_function(item, where, method=True, overrides=overrides)
    return problems


def declared_all(tree: ast.Module) -> set[str] | None:
    """The names a module's `__all__` lists, or None where it declares none.

    Args:
        tree: The module's syntax tree.

    Returns:
        The names of its `__all__ = [...]` (string constants), or None.
    """
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets) and node.value is not None:
            if isinstance(node.value, (ast.List, ast.Tuple)):
                return {e.value for e in node.value.elts if isinstance(e, ast.Constant)}
    return None


def check_file(path: Path) -> tuple[int, list[str]]:
    """The public callables of one file and their problems.

    Args:
        path: A Python source file.

    Returns:
        How many public callables it defines (classes, functions, methods) and one line per
        problem.
    """
    if any(part.startswith("_") and part != "__init__" for part in path.with_suffix("").parts):
        return 0, []
    tree = ast.parse(path.read_text(), filename=str(path))
    exported = declared_all(tree)
    count, problems = 0, []
    for node in tree.body:
        if node.name.startswith("_") if hasattr(node, "name") else True:
            continue
        if exported is not None and node.name not in exported:
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            count += 1
            problems += check_function(node, f"{path}:{node.lineno} {node.name}", method=False)
        elif isinstance(node, ast.ClassDef):
            methods = [
                n
                for n in node.body
                if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
                and not n.name.startswith("_")
                and "setter" not in decorator_names(n)
            ]
            count += 1 + len(methods)
            problems += check_class(node, path)
    return count, problems


def main(argv: list[str]) -> int:
    """Check the files named on the command line.

    Args:
        argv: Files and directories (searched for `*.py`).

    Returns:
        The exit status: 1 if any callable is incomplete, else 0.

    Raises:
        SystemExit: With a usage line when no path is given.
    """
    if not argv:
        raise SystemExit("usage: python docs/check_docstrings.py FILE_OR_DIR [...]")
    files = []
    for name in argv:
        path = Path(name)
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    for path in files:
        collect_classes(ast.parse(path.read_text(), filename=str(path)))
    total, failing = 0, 0
    for path in files:
        count, problems = check_file(path)
        total += count
        failing += len(problems)
        for line in problems:
            print(line)
    print(f"{len(files)} files, {total} public callables, {failing} problems")
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
