"""The native build: a game's generated modules compiled with mypyc (``compile --native``).

The generated modules are typed Python; mypyc compiles them to C extension modules that
import in their place (Python prefers ``engine.cpython-*.so`` to ``engine.py`` in the same
folder). The build happens in a temporary tree that mirrors the installed names
(``rulecraft/generated/<game>/``), and its products are copied beside the ``.py`` files with
``native.json``, the hashes of the sources they were built from (and of the runtime modules
whose copy it compiles, below): the runtime refuses a native build whose sources changed
since (``rulecraft.runtime.registry.check_native``), and ``rulecraft compile`` deletes the
native build of a game whose modules it rewrites.

The engines call the helpers of ``rulecraft.runtime.prelude`` in their hot loops; so that
mypyc compiles those calls as native calls, the build compiles a standalone copy of the
prelude with them (``_prelude``, written by :func:`standalone_prelude` from the real modules,
as Lark's standalone generator extracts its parser from its own source), and the build's
copies of the engines import it in place of ``rulecraft.runtime.prelude``.

What is compiled, and how (so that every bundled game builds in a few minutes on 2 cores):

* only the modules that define routines (:func:`native_modules`: the engine, and a scenario
  that overrides some of its routines); a scenario module that holds only data (tables, the
  layout, the map) stays Python. Its literals would be most of the C (Third Reich's four
  data modules were 13 of its 16 MB) and compiling them gains nothing: the engines read the
  data once, from the dict it builds;
* each module to its own C file (mypyc's ``multi_file``), in one shared library, so that
  calls between the engine, the scenarios and the prelude stay native calls;
* a module's C file longer than :data:`PART_LINES` split into parts by function
  (:func:`split_c_file`): mypyc writes one C file per module, and one ``cc1 -O3`` on
  the biggest bundled engine (322,000 lines) took 200 s alone, where its ten parts take
  140 s of CPU between them (the optimiser's work grows faster than a file's size) and
  share the cores;
* the C files compiled side by side, :func:`build_jobs` at once, the biggest first
  (:func:`parallel_compile`, in place of setuptools' one-after-the-other loop).
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import json
import math
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from ..runtime.registry import native_runtime_hashes

__all__ = [
    "NativeError",
    "build_native",
    "build_jobs",
    "native_modules",
    "parallel_compile",
    "split_c_file",
    "remove_native",
    "standalone_prelude",
    "NATIVE_MANIFEST",
    "PRELUDE_MODULE",
]

NATIVE_MANIFEST = "native.json"
#: the module of a native build that holds its copy of rulecraft.runtime.prelude
PRELUDE_MODULE = "_prelude"
RUNTIME = "rulecraft.runtime"
#: the C compilations a native build runs at once (default: the machine's cores)
JOBS_ENV = "RULECRAFT_NATIVE_JOBS"

MYPY_CONFIG = """\
[mypy]
follow_imports = silent
ignore_missing_imports = True
warn_unused_configs = False

[mypy-rulecraft.runtime.*]
follow_imports = skip
"""

SETUP = """\
from __future__ import annotations

import math
import os
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from setuptools import setup
from setuptools._distutils import ccompiler
from mypyc.build import mypycify

GROUP = {group}
JOBS = {jobs}
PART_LINES = {part_lines}

{split_c}

{parallel_compile}

ccompiler.CCompiler.compile = parallel_compile
files = sys.argv[1:]
start = time.monotonic()
sys.argv[1:] = ["build_ext", "--inplace", "--parallel", str(JOBS)]
extensions = mypycify(["--config-file", "mypy.ini", *files], group_name=GROUP, multi_file=True)
print(f"rulecraft: mypyc wrote the C files in {time.monotonic() - start:.1f} s", flush=True)
# (mypyc writes the C file of each module to build/, and their header to the group's folder)
for ext in extensions:
    ext.include_dirs.append(os.path.join("build", *GROUP.split(".")[:-1]))
    ext.sources = [part for src in ext.sources for part in split_c_file(src, ext.include_dirs)]
setup(name="rulecraft-native", ext_modules=extensions)
"""


class NativeError(Exception):
    """The native build could not be made (no compiler, no mypyc, a build failure)."""


def source_hashes(folder: Path) -> dict[str, str]:
    """sha256 of every generated module of a game, by file name."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.glob("*.py"))
        if p.name != "__init__.py"
    }


def remove_native(folder: Path) -> list[Path]:
    """Delete a game's native build; returns what was removed."""
    removed = []
    for p in sorted(folder.glob("*.so")) + sorted(folder.glob("*.pyd")):
        p.unlink()
        removed.append(p)
    manifest = folder / NATIVE_MANIFEST
    if manifest.exists():
        manifest.unlink()
        removed.append(manifest)
    return removed


def native_modules(folder: Path) -> list[Path]:
    """The generated modules of a game that the native build compiles: those that define
    routines (a class or a function: the engine, a scenario that overrides routines). A
    module of data alone (its scenario's tables, layout and map, and the spec made from
    them) stays Python: it runs once, at import."""
    return [
        p
        for p in sorted(folder.glob("*.py"))
        if p.name != "__init__.py" and defines_routines(p.read_text(encoding="utf-8"))
    ]


def defines_routines(source: str) -> bool:
    """Whether a module defines a class or a function at its top level."""
    return any(
        isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        for node in ast.parse(source).body
    )


def build_jobs() -> int:
    """How many C files a native build compiles at once: ``$RULECRAFT_NATIVE_JOBS``, or the
    cores this process may run on."""
    given = os.environ.get(JOBS_ENV, "").strip()
    if given:
        try:
            jobs = int(given)
        except ValueError:
            raise NativeError(f"{JOBS_ENV}={given!r} is not a number of jobs") from None
        if jobs < 1:
            raise NativeError(f"{JOBS_ENV}={given!r}: at least 1 job")
        return jobs
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def parallel_compile(
    self: Any,
    sources: list[str],
    output_dir: str | None = None,
    macros: Any = None,
    include_dirs: Any = None,
    debug: Any = 0,
    extra_preargs: Any = None,
    extra_postargs: Any = None,
    depends: Any = None,
) -> list[str]:
    """``CCompiler.compile`` with the sources of an extension compiled side by side: JOBS
    at once, the biggest first (so that the longest compilation starts at once). The build's
    setup script holds a copy of it (``SETUP``), with ``JOBS``."""
    macros, objects, extra_postargs, pp_opts, build = self._setup_compile(
        output_dir, macros, include_dirs, sources, depends, extra_postargs
    )
    cc_args = self._get_cc_args(pp_opts, debug, extra_preargs)
    todo = sorted(
        (obj for obj in objects if obj in build),
        key=lambda obj: (-os.path.getsize(build[obj][0]), obj),
    )

    def one(obj: str) -> None:
        src, ext = build[obj]
        start = time.monotonic()
        self._compile(obj, src, ext, cc_args, extra_postargs, pp_opts)
        print(f"rulecraft: compiled {src} in {time.monotonic() - start:.1f} s", flush=True)

    with ThreadPoolExecutor(max(1, min(JOBS, len(todo)))) as pool:
        for _ in pool.map(one, todo):  # the first failure is raised
            pass
    return objects


#: the compilations parallel_compile runs at once (the setup script sets its own)
JOBS = 1


def setup_script(group: str, jobs: int) -> str:
    """The setup script of a native build: mypyc's extensions of the group, their big C
    files split (:func:`split_c_file`), built with :func:`parallel_compile` on ``jobs`` at
    once. (The script runs where the build's tree shadows the ``rulecraft`` package, so it
    holds copies of the functions.)"""
    split_c = "\n\n".join(inspect.getsource(f) for f in (split_c_file, c_pieces, c_piece_name))
    return (
        SETUP.replace("{group}", repr(group))
        .replace("{jobs}", repr(jobs))
        .replace("{part_lines}", repr(PART_LINES))
        .replace(
            "{split_c}",
            f"C_TOKEN = re.compile({C_TOKEN.pattern!r}, {C_TOKEN.flags})\n"
            f"C_NAME = re.compile({C_NAME.pattern!r})\n\n\n{split_c}",
        )
        .replace("{parallel_compile}", inspect.getsource(parallel_compile))
    )


# ---------------------------------------------------------------------------- the C split

#: a C file longer than this (in lines) is compiled in parts of about this size
PART_LINES = 40_000

#: what a scan of C needs to see: literals and comments (to skip), preprocessor lines,
#: braces and semicolons
C_TOKEN = re.compile(
    r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'|/\*.*?\*/|//[^\n]*|^[ \t]*#[^\n]*|[{};]',
    re.S | re.M,
)
C_NAME = re.compile(r"[A-Za-z_]\w*")


def c_pieces(text: str) -> list[str]:
    """The top-level pieces of a C file, in order: each a definition or a declaration, with
    the blank, comment and preprocessor lines before it; together they are the text."""
    pieces: list[str] = []
    start = depth = 0
    for m in C_TOKEN.finditer(text):
        token = m.group()
        if token == "{":
            depth += 1
            continue
        if token == "}":
            depth -= 1
        elif token != ";":
            continue
        if depth:
            continue
        end = text.find("\n", m.end())
        end = len(text) if end < 0 else end + 1
        if end > start and text[m.end() : end].strip() in ("", ";"):
            pieces.append(text[start:end])
            start = end
    if start < len(text):
        pieces.append(text[start:])
    return pieces


def c_piece_name(piece: str) -> str | None:
    """The name a top-level C piece defines or declares (a function's, a variable's)."""
    code = "".join(
        line for line in piece.splitlines(keepends=True) if not line.lstrip().startswith("#")
    )
    head = code.split("{", 1)[0].split("=", 1)[0].split("(", 1)[0]
    names = C_NAME.findall(head.replace("[", " "))
    return names[-1] if names else None


def split_c_file(source: str, include_dirs: list[str]) -> list[str]:
    """Split a C file of mypyc's longer than ``PART_LINES`` into parts that compile apart;
    returns its sources (the file itself, rewritten, and its parts beside it).

    A function moves to a part when the headers the file includes declare it and it uses
    nothing the file alone defines or declares (its static functions, its tables, its
    types): it links as before. Whatever else stays in the file. The functions are dealt
    to the parts biggest first, each to the smallest part so far. A file with nothing to
    move is left whole.
    """
    with open(source, encoding="utf-8") as f:
        text = f.read()
    lines = text.count("\n")
    if lines <= PART_LINES:
        return [source]
    includes = re.findall(r'^#include "([^"]+)"', text, re.M)
    declared: set[str] = set()
    for include in includes:
        for folder in [os.path.dirname(source), *include_dirs]:
            path = os.path.join(folder, include)
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    declared.update(C_NAME.findall(f.read()))
                break
    pieces = c_pieces(text)
    names = [c_piece_name(piece) for piece in pieces]
    local = {name for name in names if name is not None} - declared
    moving = [
        k
        for k, (piece, name) in enumerate(zip(pieces, names, strict=True))
        if name in declared
        and "{" in piece
        and "(" in piece.split("{", 1)[0]
        and not piece.lstrip().startswith(("static", "#"))
        and not local.intersection(C_NAME.findall(piece))
    ]
    if not moving:
        return [source]
    parts: list[list[int]] = [[] for _ in range(math.ceil(lines / PART_LINES))]
    sizes = [0] * len(parts)
    for k in sorted(moving, key=lambda k: (-len(pieces[k]), k)):
        j = sizes.index(min(sizes))
        parts[j].append(k)
        sizes[j] += len(pieces[k])
    preamble = "".join(f'#include "{include}"\n' for include in includes)
    stem = source[: -len(".c")]
    sources = [source]
    for j, part in enumerate(parts, 1):
        if part:
            sources.append(f"{stem}__part{j}.c")
            with open(sources[-1], "w", encoding="utf-8") as f:
                f.write(preamble + "".join(pieces[k] for k in sorted(part)))
    moved = set(moving)
    with open(source, "w", encoding="utf-8") as f:
        f.write("".join(piece for k, piece in enumerate(pieces) if k not in moved))
    return sources


def _check_tools() -> None:
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise NativeError(
            "the native build needs mypyc: install rulecraft with its native extra "
            "(pip install 'rulecraft[native]')"
        ) from None
    cc = sysconfig.get_config_var("CC") or "cc"
    if shutil.which(cc.split()[0]) is None:
        raise NativeError(
            f"the native build needs a C compiler ({cc.split()[0]!r} was not found); the "
            "engines run without it"
        )
    include = sysconfig.get_paths().get("include")
    if not include or not (Path(include) / "Python.h").exists():
        raise NativeError(
            "the native build needs the Python headers (Python.h); on Debian or Ubuntu: "
            "apt-get install python3-dev"
        )


def build_native(
    generated: Path, game: str, log: Path | None = None, package: str = "rulecraft.generated"
) -> list[Path]:
    """Compile ``generated/<game>/`` (imported as ``<package>.<game>``) with mypyc; returns
    the files written beside it."""
    _check_tools()
    folder = generated / game
    modules = sorted(p for p in folder.glob("*.py") if p.name != "__init__.py")
    if not modules:
        raise NativeError(f"generated/{game}/ has no engine to build: run `rulecraft compile`")
    compiled = native_modules(folder)
    jobs = build_jobs()
    remove_native(folder)
    with tempfile.TemporaryDirectory(prefix="rulecraft-native-") as tmp:
        root = Path(tmp)
        parts = package.split(".")
        pkg = root.joinpath(*parts, game)
        pkg.mkdir(parents=True)
        for n in range(1, len(parts) + 1):
            root.joinpath(*parts[:n], "__init__.py").write_text("")
        for p in [*modules, folder / "__init__.py"]:
            text = p.read_text(encoding="utf-8")
            (pkg / p.name).write_text(
                text.replace(f"from {RUNTIME}.prelude import ", f"from .{PRELUDE_MODULE} import "),
                encoding="utf-8",
            )
        prelude = pkg / f"{PRELUDE_MODULE}.py"
        prelude.write_text(standalone_prelude(), encoding="utf-8")
        (root / "mypy.ini").write_text(MYPY_CONFIG)
        group = f"{package}.{game}.native"
        (root / "setup_native.py").write_text(setup_script(group, jobs))
        files = ["/".join([*parts, game, p.name]) for p in [*compiled, prelude]]
        proc = subprocess.run(
            [sys.executable, "setup_native.py", *files],
            cwd=root,
            capture_output=True,
            text=True,
            check=False,
        )
        if log is not None:
            log.write_text(proc.stdout + proc.stderr, encoding="utf-8")
        if proc.returncode != 0:
            tail = "\n".join((proc.stdout + proc.stderr).strip().splitlines()[-15:])
            raise NativeError(f"the native build of {game} failed:\n{tail}")
        written = []
        for so in sorted(pkg.glob("*.so")) + sorted(pkg.glob("*.pyd")):
            shutil.copy(so, folder / so.name)
            written.append(folder / so.name)
    manifest = folder / NATIVE_MANIFEST
    manifest.write_text(
        json.dumps(
            {"sources": source_hashes(folder), "runtime": native_runtime_hashes()},
            indent=2,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )
    return [*written, manifest]


# ---------------------------------------------------------------------------- the prelude


def standalone_prelude() -> str:
    """``rulecraft.runtime.prelude`` as one module that mypyc compiles with the engines.

    Its relative imports are replaced: a function of the runtime it imports (``roll`` from
    ``rng``, ``bits`` from ``layout``) is copied in from its module's source with the private
    names it uses (``_MASK``, ``_BITS8``, ...); an int constant (a header slot) becomes a
    ``Final`` with its value, which mypyc compiles as a constant; anything else (the errors,
    ``FIXED_ROLLS``, ``deals``, typing names) is imported from where the module has it, so
    there is one of it.
    """
    source = inspect.getsource(importlib.import_module(f"{RUNTIME}.prelude"))
    tree = ast.parse(source)
    lines = source.splitlines(keepends=True)
    given = {  # names the prelude defines or imports from elsewhere (typing)
        t.id
        for node in tree.body
        if isinstance(node, (ast.Assign, ast.AnnAssign))
        for t in (node.targets if isinstance(node, ast.Assign) else [node.target])
        if isinstance(t, ast.Name)
    } | {
        a.asname or a.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.level == 0
        for a in node.names
    }
    out = _Standalone(given)
    head: list[str] = []
    done = 0
    for node in tree.body:
        if not (isinstance(node, ast.ImportFrom) and node.level == 1):
            continue
        head.append("".join(lines[done : node.lineno - 1]))
        done = node.end_lineno or node.lineno
        if node.module is None:  # from . import deals
            for a in node.names:
                out.imports[a.asname or a.name] = f"from {RUNTIME} import {_alias_text(a)}\n"
            continue
        module = importlib.import_module(f"{RUNTIME}.{node.module}")
        for a in node.names:
            out.take(module, a.name, a.asname or a.name)
    body = "".join(lines[done:])
    return (
        "# A copy of rulecraft.runtime.prelude for the native build (rulecraft.compiler.native).\n"
        + "".join(head)
        + "".join(out.imports.values())
        + "".join(out.constants.values())
        + "".join(out.definitions.values())
        + body
    )


def _alias_text(a: ast.alias) -> str:
    return a.name if a.asname is None else f"{a.name} as {a.asname}"


class _Standalone:
    """What stands for the prelude's imports from the runtime: imports, constants and copied
    definitions, by the name they bind."""

    def __init__(self, given: set[str]) -> None:
        self.given = given
        self.imports: dict[str, str] = {}
        self.constants: dict[str, str] = {}
        self.definitions: dict[str, str] = {}

    def bound(self, name: str) -> bool:
        return (
            name in self.given
            or name in self.imports
            or name in self.constants
            or name in self.definitions
        )

    def take(self, module: Any, name: str, asname: str) -> None:
        """``from .<module> import name as asname``, made standalone."""
        if self.bound(asname):
            return
        obj = getattr(module, name)
        if isinstance(obj, int) and not isinstance(obj, bool):
            self.constants[asname] = f"{asname}: Final = {obj!r}\n"
        elif inspect.isfunction(obj) and obj.__module__ == module.__name__:
            self.copy(module, name, asname)
        else:
            alias = name if name == asname else f"{name} as {asname}"
            self.imports[asname] = f"from {module.__name__} import {alias}\n"

    def copy(self, module: Any, name: str, asname: str) -> None:
        """Copy the definition of ``name`` in ``module`` (a function as ``asname``) and what
        it uses: the private module-level names copied too, the others taken."""
        source = inspect.getsource(module)
        defs: dict[str, ast.stmt] = {}
        for node in ast.parse(source).body:
            if isinstance(node, ast.FunctionDef):
                defs[node.name] = node
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                if isinstance(node.targets[0], ast.Name):
                    defs[node.targets[0].id] = node
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                defs[node.target.id] = node
        node = defs[name]
        text = ast.get_source_segment(source, node) or ""
        if isinstance(node, ast.FunctionDef):
            text = "\n\n" + text.replace(f"def {name}(", f"def {asname}(", 1) + "\n"
        else:
            text = text + "\n"
        self.definitions[asname] = text
        local = {x.arg for x in ast.walk(node) if isinstance(x, ast.arg)} | {
            x.id for x in ast.walk(node) if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Store)
        }
        for x in ast.walk(node):
            if isinstance(x, ast.Name) and isinstance(x.ctx, ast.Load):
                used = x.id
                if used in local or used == name or self.bound(used):
                    continue
                if not hasattr(module, used):
                    continue  # a builtin
                if used.startswith("_") and used in defs:
                    self.copy(module, used, used)
                else:
                    self.take(module, used, used)
