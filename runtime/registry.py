"""Finding compiled games by name."""

from __future__ import annotations

import importlib
import pkgutil

from .machine import UnknownGame
from .spec import GameSpec

__all__ = ["register", "load_spec", "known_games", "resolve"]

_SPECS: dict[str, GameSpec] = {}


def register(spec: GameSpec) -> GameSpec:
    """Make ``spec`` findable by its name (used by hand-written engines and tests)."""
    _SPECS[spec.game] = spec
    return spec


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


def load_spec(game: str) -> GameSpec:
    """The :class:`GameSpec` of a compiled game (``rulecraft.generated.<game>.SPEC``)."""
    spec = _SPECS.get(game)
    if spec is not None:
        return spec
    if not game.isidentifier():
        raise UnknownGame(f"no game named {game!r}")
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
    _SPECS[game] = spec
    return spec


def resolve(name: str) -> tuple[GameSpec, str]:
    """``"game/scenario"`` (or ``"game"`` with a single or first scenario) -> (spec, scenario)."""
    game, _, scenario = name.partition("/")
    spec = load_spec(game)
    if not scenario:
        if not spec.scenarios:
            raise UnknownGame(f"game {game!r} has no scenario")
        return spec, next(iter(spec.scenarios))
    if scenario not in spec.scenarios:
        known = ", ".join(f"{game}/{s}" for s in spec.scenarios)
        raise UnknownGame(f"game {game!r} has no scenario {scenario!r} (known: {known})")
    return spec, scenario
