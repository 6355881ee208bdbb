"""Finding compiled games by name."""

from __future__ import annotations

import importlib
import pkgutil

from .machine import UnknownGame
from .spec import GameSpec

__all__ = ["register", "load_spec", "known_games", "resolve", "check_native"]

_SPECS: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    """Make ``spec`` findable by its game name and by ``game/scenario`` for each scenario.

    A generated game has one module per scenario, each with its own spec; the first one
    registered also answers for the game name alone.
    """
    _SPECS.setdefault(spec.game, spec)
    for scenario in spec.scenarios:
        _SPECS[f"{spec.game}/{scenario}"] = spec
    return spec


def check_native(package: str, folders: list[str]) -> None:
    """Refuse a native build (``rulecraft compile --native``) whose generated sources
    changed since it was built: it would run other rules than the ``.py`` files say.

    Called by a generated game package before it imports its modules."""
    import hashlib
    import json
    from pathlib import Path

    for folder in map(Path, folders):
        manifest = folder / "native.json"
        if not manifest.exists():
            continue
        try:
            built = json.loads(manifest.read_text(encoding="utf-8"))["sources"]
        except (OSError, ValueError, KeyError, TypeError):
            built = None
        now = {
            p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.glob("*.py"))
            if p.name != "__init__.py"
        }
        if built != now:
            game = package.rpartition(".")[2]
            raise UnknownGame(
                f"the native build of {game} is older than its generated modules: run "
                f"`rulecraft compile --native {game}` again, or delete {folder}/*.so and "
                f"{manifest} to run the modules interpreted"
            )


def known_games() -> list[str]:
    """Names of the registered and compiled games, sorted."""
    names = set(_SPECS)
    try:
        pkg = importlib.import_module("rulecraft.generated")
        names.update(
            m.name for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_")
        )
    except ImportError:
        pass
    return sorted(names)


def load_spec(game: str, scenario: str | None = None) -> GameSpec:
    """The :class:`GameSpec` of a compiled game, or of one of its scenarios.

    Importing ``rulecraft.generated.<game>`` registers the spec of every scenario.
    """
    key = f"{game}/{scenario}" if scenario else game
    spec = _SPECS.get(key)
    if spec is not None:
        return spec
    if not game.isidentifier():
        raise UnknownGame(f"no game named {game!r}")
    if scenario and game in _SPECS:
        _unknown_scenario(game, scenario)
    try:
        module = importlib.import_module(f"rulecraft.generated.{game}")
    except ModuleNotFoundError as exc:
        if exc.name is not None and not f"rulecraft.generated.{game}".startswith(exc.name):
            raise
        known = ", ".join(known_games()) or "none"
        raise UnknownGame(
            f"no compiled game named {game!r} (known: {known}); "
            f"run `rulecraft compile` if rules/{game}/ exists"
        ) from None
    spec = getattr(module, "SPEC", None)
    if not isinstance(spec, GameSpec):
        raise UnknownGame(
            f"rulecraft.generated.{game} has no SPEC; run `rulecraft compile` to regenerate it"
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
