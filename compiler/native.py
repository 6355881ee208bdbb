"""The native build: a game's generated modules compiled with mypyc (``compile --native``).

The generated modules are typed Python; mypyc compiles them to C extension modules that
import in their place (Python prefers ``engine.cpython-*.so`` to ``engine.py`` in the same
folder). The build happens in a temporary tree that mirrors the installed names
(``rulecraft/generated/<game>/``), and its products are copied beside the ``.py`` files with
``native.json``, the hashes of the sources they were built from: the runtime refuses a
native build whose sources changed since (``rulecraft.runtime.registry.check_native``), and
``rulecraft compile`` deletes the native build of a game whose modules it rewrites.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

__all__ = ["NativeError", "build_native", "remove_native", "NATIVE_MANIFEST"]

NATIVE_MANIFEST = "native.json"

MYPY_CONFIG = """\
[mypy]
follow_imports = silent
ignore_missing_imports = True
warn_unused_configs = False

[mypy-rulecraft.runtime.*]
follow_imports = skip
"""

SETUP = """\
import sys
from setuptools import setup
from mypyc.build import mypycify

files = sys.argv[1:]
sys.argv[1:] = ["build_ext", "--inplace"]
setup(
    name="rulecraft-native",
    ext_modules=mypycify(["--config-file", "mypy.ini", *files], group_name=GROUP),
)
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
    remove_native(folder)
    with tempfile.TemporaryDirectory(prefix="rulecraft-native-") as tmp:
        root = Path(tmp)
        parts = package.split(".")
        pkg = root.joinpath(*parts, game)
        pkg.mkdir(parents=True)
        for n in range(1, len(parts) + 1):
            root.joinpath(*parts[:n], "__init__.py").write_text("")
        for p in [*modules, folder / "__init__.py"]:
            shutil.copy(p, pkg / p.name)
        (root / "mypy.ini").write_text(MYPY_CONFIG)
        group = f"{package}.{game}.native"
        (root / "setup_native.py").write_text(f"GROUP = {group!r}\n" + SETUP)
        files = ["/".join([*parts, game, p.name]) for p in modules]
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
        json.dumps({"sources": source_hashes(folder)}, indent=2, sort_keys=True) + "\n",
        encoding="utf-8",
    )
    return [*written, manifest]
