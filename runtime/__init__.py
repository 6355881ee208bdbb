"""rulecraft runtime: what a generated engine needs to run, and nothing more.

Generated modules import only names listed in :data:`exported` and the helpers of
:mod:`.prelude`. Users drive games through
:class:`Game`; bots, self-play, the balance report and terminal play are in
:mod:`rulecraft.runtime.tools` (``agents``, ``simulate``, ``balance``, ``terminal``). The
runtime needs only the standard library.

| module | job |
|---|---|
| ``layout`` | the compact state: header slots, the layout of a scenario's fields |
| ``machine`` | the driver of the machine form, random playouts, the errors |
| ``spec`` | ``GameSpec``: a compiled scenario, rendering of log lines, prompts, options |
| ``game`` | ``Game``: pending decisions, apply, clone, save and load |
| ``view`` | visibility (views for players and bots) and determinization |
| ``named`` | the state by field name: display, the live named view, positions |
| ``saves`` | saves of games: seed and decisions, replayed to load them |
| ``rng`` | the seeded generator kept in the state; die values fixed in advance (examples) |
| ``prelude`` | the helpers every generated engine calls (dice, bitmasks, the log, tables) |
| ``registry`` | finding compiled games by name, also a project's (``use_project``) |
| ``config`` | a rules project's ``rulecraft.toml``: its folders and package |
| ``files`` | reading and writing the files people name: regular files only, reads bounded |
| ``numbers`` | numbers people type (offers, allocations, reports): ASCII digits, bounded |
"""

from __future__ import annotations

from typing import Any

from .game import Decision, Game, Option, load_spec, new_state, resolve, undo_barrier
from .layout import ABI, Layout, engine_data
from .machine import (
    SUSPEND,
    DeadEnd,
    GameEnded,
    GameError,
    IllegalDecision,
    MalformedDecision,
    RulesError,
    TurnLimit,
    UnknownGame,
    playout,
    run,
)
from .named import NamedState, SaveError
from .registry import check_native, known_games, register, use_project
from .rng import FIXED_ROLLS, derive_seed, fixed_roll
from .spec import GameSpec, ScenarioSpec
from .split import Changes, Split
from .view import determinize, is_hidden

#: the names generated engine modules may import
exported = (
    "SUSPEND",
    "Changes",
    "DeadEnd",
    "GameEnded",
    "RulesError",
    "Split",
    "TurnLimit",
    "GameSpec",
    "engine_data",
    "register",
    "check_native",
    "FIXED_ROLLS",
    "fixed_roll",
)

__all__ = [
    "SUSPEND",
    "Changes",
    "DeadEnd",
    "GameEnded",
    "RulesError",
    "TurnLimit",
    "GameSpec",
    "engine_data",
    "register",
    "check_native",
    "FIXED_ROLLS",
    "fixed_roll",
    "ABI",
    "Decision",
    "Game",
    "GameError",
    "IllegalDecision",
    "Layout",
    "MalformedDecision",
    "NamedState",
    "Option",
    "SaveError",
    "Split",
    "ScenarioSpec",
    "UnknownGame",
    "derive_seed",
    "determinize",
    "is_hidden",
    "known_games",
    "load_spec",
    "new_state",
    "playout",
    "resolve",
    "run",
    "undo_barrier",
    "use_project",
    "view",
    "log_for",
    # tools, loaded on first use (rulecraft.runtime.tools)
    "make_agent",
    "simulate",
    "play",
]

_TOOLS = {
    "make_agent": ("agents", "make_agent"),
    "RandomAgent": ("agents", "RandomAgent"),
    "MonteCarloAgent": ("agents", "MonteCarloAgent"),
    "simulate": ("simulate", "simulate"),
    "SimResult": ("simulate", "SimResult"),
    "play": ("terminal", "play"),
}


def view(spec: Any, S: list[Any], player: int | None, log: bool = True) -> list[Any]:
    """What ``player`` may see of the compact state ``S`` (see :mod:`.view`)."""
    from .view import view as _view

    return _view(spec, S, player, log)


def log_for(spec: Any, S: list[Any], player: int | None) -> list[str]:
    """The log lines ``player`` may read (see :mod:`.view`)."""
    from .view import log_for as _log_for

    return _log_for(spec, S, player)


def __getattr__(name: str) -> Any:
    if name in _TOOLS:
        import importlib

        module, attr = _TOOLS[name]
        return getattr(importlib.import_module(f"{__name__}.tools.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
