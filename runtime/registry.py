"""Finding compiled games by name.

A game ``g`` is the module ``<package>.g`` of the first package in :data:`PACKAGES` that has
it: the packages of the projects in use (:func:`use_project`; the rulecraft command uses the
project it runs in) come before the games bundled with rulecraft (``rulecraft.generated``).
"""

from __future__ import annotations

import importlib
import importlib.util
import pkgutil
import sys
from pathlib import Path
from types import ModuleType

from .config import Project, find_project
from .machine import UnknownGame
from .spec import GameSpec

__all__ = [
    "register",
    "load_spec",
    "known_games",
    "resolve",
    "check_native",
    "game_module",
    "use_package",
    "use_project",
    "PACKAGES",
]

_SPECS: dict[str, GameSpec] = {}
BUNDLED = "rulecraft.generated"
#: the packages games are looked up in, first first
PACKAGES: list[str] = [BUNDLED]
#: the folders of packages imported from a folder (a project's generated folder)
_FOLDERS: dict[str, Path] = {}


def use_package(package: str, folder: Path | str | None = None) -> None:
    """Look games up in ``package`` before the others; with ``folder``, the package is
    imported from that folder (its ``__init__.py``) when a game is first looked up. A package
    of that name already imported from elsewhere (another project's) is forgotten, with its
    games. A game of this package hides one of the same name found before (a bundled one)."""
    if folder is not None:
        _FOLDERS[package] = where = Path(folder).resolve()
        old = sys.modules.get(package)
        if old is not None and all(
            Path(p).resolve() != where for p in getattr(old, "__path__", None) or ()
        ):
            _forget(package)
    if package in PACKAGES:
        PACKAGES.remove(package)
    PACKAGES.insert(0, package)
    places = [_FOLDERS[package]] if package in _FOLDERS else []
    places += list(getattr(sys.modules.get(package), "__path__", None) or [])
    for place in places:
        for found in pkgutil.iter_modules([str(place)]):
            for key in [k for k in _SPECS if k.partition("/")[0] == found.name]:
                if not _SPECS[key].engine.__module__.startswith(package + "."):
                    del _SPECS[key]


def _forget(package: str) -> None:
    """Drop ``package``, its modules and their games (another folder's package is next)."""
    for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
        del sys.modules[name]
    for key in [
        k for k, spec in _SPECS.items() if spec.engine.__module__.startswith(package + ".")
    ]:
        del _SPECS[key]


def folders() -> dict[str, Path]:
    """The packages :func:`use_package` imports from a folder, and their folders."""
    return dict(_FOLDERS)


def _package(package: str) -> ModuleType:
    """``package``, imported (from its folder if :func:`use_package` gave one)."""
    module = sys.modules.get(package)
    if module is not None:
        return module
    folder = _FOLDERS.get(package)
    if folder is not None and (folder / "__init__.py").is_file():
        if not _imports_from(package, folder):
            spec = importlib.util.spec_from_file_location(
                package, folder / "__init__.py", submodule_search_locations=[str(folder)]
            )
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            sys.modules[package] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[package]
                raise
            return module
    return importlib.import_module(package)


def _imports_from(package: str, folder: Path) -> bool:
    """Whether a normal import of ``package`` would find it in ``folder``."""
    try:
        spec = importlib.util.find_spec(package)
    except (ImportError, ValueError):
        return False
    places = spec.submodule_search_locations if spec is not None else None
    return bool(places) and any(Path(p).resolve() == folder for p in places or ())


def use_project(where: Path | str | Project | None = None) -> Project:
    """Find a project's engines: ``where`` is a project, or a folder in one (default: the
    working folder); its ``rulecraft.toml`` names the package. Returns the project."""
    project = where if isinstance(where, Project) else find_project(where)
    use_package(project.package, project.generated)
    return project


def game_module(game: str) -> ModuleType:
    """The generated package of ``game`` (``<package>.<game>``), imported."""
    if not game.isidentifier():
        raise UnknownGame(f"no game named {game!r}")
    for package in PACKAGES:
        name = f"{package}.{game}"
        try:
            _package(package)
            return importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name is not None and not name.startswith(exc.name):
                raise
    known = ", ".join(g for g in known_games() if "/" not in g) or "none"
    raise UnknownGame(
        f"no compiled game named {game!r} (known: {known}); "
        f"run `rulecraft compile` if rules/{game}/ exists"
    )


def register(spec: GameSpec) -> GameSpec:
    """Make ``spec`` findable by its game name and by ``game/scenario`` for each scenario.

    A generated game has one module per scenario, each with its own spec; the first one
    registered also answers for the game name alone.
    """
    _SPECS.setdefault(spec.game, spec)
    for scenario in spec.scenarios:
        _SPECS[f"{spec.game}/{scenario}"] = spec
    return spec


#: the runtime modules a native build compiles a copy of (the prelude and what it copies in)
NATIVE_RUNTIME = ("prelude.py", "rng.py", "layout.py")


def native_runtime_hashes() -> dict[str, str]:
    """sha256 of the runtime modules a native build holds a copy of, by file name."""
    import hashlib
    from pathlib import Path

    here = Path(__file__).parent
    return {n: hashlib.sha256((here / n).read_bytes()).hexdigest() for n in NATIVE_RUNTIME}


def check_native(package: str, folders: list[str]) -> None:
    """Refuse a native build (``rulecraft compile --native``) whose generated sources
    changed since it was built, or the runtime modules it holds a copy of (the prelude): it
    would run other rules than the ``.py`` files say.

    Called by a generated game package before it imports its modules."""
    import hashlib
    import json
    from pathlib import Path

    for folder in map(Path, folders):
        manifest = folder / "native.json"
        if not manifest.exists():
            continue
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            built, runtime = data["sources"], data.get("runtime")
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            built = runtime = None
        now = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*.py"))
            if p.name != "__init__.py"
        }
        if built != now or (runtime is not None and runtime != native_runtime_hashes()):
            game = package.rpartition(".")[2]
            raise UnknownGame(
                f"the native build of {game} is older than its generated modules: run "
                f"`rulecraft compile --native {game}` again, or delete {folder}/*.so and "
                f"{manifest} to run the modules interpreted"
            )


def known_games() -> list[str]:
    """Names of the registered and compiled games, sorted (games only: not ``game/scenario``)."""
    names = {key for key in _SPECS if "/" not in key}
    for package in PACKAGES:
        try:
            pkg = _package(package)
        except ImportError:
            continue
        names.update(
            m.name
            for m in pkgutil.iter_modules(getattr(pkg, "__path__", []))
            if m.ispkg and not m.name.startswith("_")
        )
    return sorted(names)


def load_spec(game: str, scenario: str | None = None) -> GameSpec:
    """The :class:`GameSpec` of a compiled game, or of one of its scenarios.

    Importing ``rulecraft.generated.<game>`` registers the spec of every scenario.
    """
    key = f"{game}/{scenario}" if scenario else game
    spec = _SPECS.get(key)
    if spec is not None and _shadowed(spec):
        # a project compiled a game of this name since the bundled one was registered
        for k in [k for k in _SPECS if k.partition("/")[0] == spec.game]:
            del _SPECS[k]
        spec = None
    if spec is not None:
        return spec
    if not game.isidentifier():
        raise UnknownGame(f"no game named {game!r}")
    if scenario and game in _SPECS:
        _unknown_scenario(game, scenario)
    module = game_module(game)
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise UnknownGame(
            f"{module.__name__} has no SPEC; run `rulecraft compile` to regenerate it"
        )
    register(spec)
    for other in getattr(module, "SPECS", {}).values():
        register(other)
    if scenario:
        found = _SPECS.get(key)
        if found is None:
            _unknown_scenario(game, scenario)
        assert found is not None
        spec = found
    return spec


def _shadowed(spec: GameSpec) -> bool:
    """Whether a package looked up before ``spec``'s own holds a game of the same name."""
    for package in PACKAGES:
        if spec.engine.__module__.startswith(package + "."):
            return False
        places = [_FOLDERS[package]] if package in _FOLDERS else []
        places += [Path(p) for p in getattr(sys.modules.get(package), "__path__", None) or []]
        if any((place / spec.game / "__init__.py").is_file() for place in places):
            return True
    return False


def _unknown_scenario(game: str, scenario: str) -> None:
    known = ", ".join(k for k in sorted(_SPECS) if k.startswith(game + "/"))
    raise UnknownGame(f"game {game!r} has no scenario {scenario!r} (known: {known})")


def resolve(name: str) -> tuple[GameSpec, str]:
    """``"game/scenario"`` (or ``"game"``: its first scenario) -> (spec, scenario)."""
    game, _, scenario = name.partition("/")
    spec = load_spec(game, scenario or None)
    if not scenario:
        if not spec.scenarios:
            raise UnknownGame(f"game {game!r} has no scenario")
        return spec, next(iter(spec.scenarios))
    return spec, scenario
