"""The data a generated engine module fills in: ``SPEC = GameSpec(...)``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["ScenarioSpec", "GameSpec"]


@dataclass(frozen=True)
class ScenarioSpec:
    """One playable set-up of a game."""

    id: str
    title: str
    seats: tuple[str, ...]
    seat_labels: tuple[str, ...]
    #: returns a fresh ``{"g": {...}, "p": [{...}, ...], "e": {...}, "turn": 0}``
    init: Callable[[], dict[str, Any]]
    #: block index the machine starts at
    entry: int
    #: safety bound; a turn beyond it is a RulesError ("game runs endlessly")
    max_turns: int = 1000


@dataclass(frozen=True, eq=False)
class GameSpec:
    """A compiled game: scenarios, the block functions and the visibility of every field."""

    game: str
    title: str
    scenarios: dict[str, ScenarioSpec]
    blocks: tuple[Callable[..., None], ...]
    #: ``"p.<field>" | "g.<field>" | "e.<type>.<field>"`` -> ``"all" | "owner" | "none"``;
    #: absent means "all". "owner" on an e-field needs an ``"owner"`` key (player index) in
    #: each record; on a g-field it means "none" (globals have no owner).
    visibility: dict[str, str] = field(default_factory=dict)
    #: per-player public list field holding every card id the player owns (determinization)
    card_universe: str | None = "cards"
    #: names for ids when rendering, e.g. ``{"card": ("MOVE 1", ...)}`` indexed like the ids,
    #: or a mapping by id: ``{"card": {"move_1": "MOVE 1"}}``
    labels: dict[str, Any] = field(default_factory=dict)
    #: rules files the module was generated from
    sources: tuple[str, ...] = ()
    #: ``origins[i]``: ``"rules/<game>/<file>.yaml:LINE:COL"`` of block ``i``, for errors
    origins: tuple[str, ...] = ()
    #: fields that hold references, by path as in ``visibility`` -> ``"player"``, ``"card"``
    #: or an entity type; the board shows their names instead of numbers
    refs: dict[str, str] = field(default_factory=dict)

    def __hash__(self) -> int:
        return id(self)
