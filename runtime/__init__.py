"""rulecraft runtime: the game-agnostic machinery generated engines run on.

Generated modules import only names listed in :data:`exported`; users import the rest
(:class:`Game`, agents, :func:`simulate`, the terminal player) from here too. The runtime
needs only the standard library (and tqdm, optionally, for progress bars).
"""

from __future__ import annotations

from .agents import MonteCarloAgent, RandomAgent, make_agent
from .game import Decision, Game, Option, load_spec, new_state, resolve, undo_barrier
from .machine import (
    DeadEnd,
    GameError,
    IllegalDecision,
    MalformedDecision,
    RulesError,
    UnknownGame,
    ask,
    ask_all,
    call,
    finish,
    log,
    ret,
    reveal,
    run,
)
from .registry import known_games, register
from .rng import choice, derive_seed, randbelow, roll, shuffle
from .simulate import SimResult, simulate
from .spec import GameSpec, ScenarioSpec
from .terminal import play
from .view import determinize, log_for, view

#: the names generated engine modules may import
exported = (
    "GameSpec",
    "ScenarioSpec",
    "RulesError",
    "DeadEnd",
    "ask",
    "ask_all",
    "call",
    "ret",
    "log",
    "reveal",
    "finish",
    "roll",
    "randbelow",
    "choice",
    "shuffle",
    "register",
)

__all__ = [
    # exported to generated engines
    "GameSpec",
    "ScenarioSpec",
    "RulesError",
    "DeadEnd",
    "ask",
    "ask_all",
    "call",
    "ret",
    "log",
    "reveal",
    "finish",
    "roll",
    "randbelow",
    "choice",
    "shuffle",
    "register",
    # for users
    "Decision",
    "Game",
    "GameError",
    "IllegalDecision",
    "MalformedDecision",
    "Option",
    "UnknownGame",
    "derive_seed",
    "determinize",
    "known_games",
    "load_spec",
    "log_for",
    "new_state",
    "resolve",
    "run",
    "undo_barrier",
    "view",
    "make_agent",
    "RandomAgent",
    "MonteCarloAgent",
    "simulate",
    "SimResult",
    "play",
]
