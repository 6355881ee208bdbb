"""The tables of a generated engine class: log templates, decision sites, routine ids and
the secret locals of frames (numbered as the routines are compiled; a scenario's class
extends its parent's, and equal entries keep their numbers)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class ClassTables:
    """The log templates, decision sites and routine ids of a class (a scenario's engine
    class extends its parent's tables; equal entries keep their ids)."""

    templates: list[tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=list)
    sites: list[tuple[Any, ...]] = field(default_factory=list)
    routines: list[str] = field(default_factory=list)
    #: (routine id, resume pc) -> ((frame local, stand-in, method or None), ...): the locals
    #: that may hold a hidden value (see :mod:`..secrecy`) and how a bot's world fills them;
    #: made anew for each class, as every routine is compiled for it
    secrets: dict[tuple[int, int], tuple[tuple[int, Any, Any], ...]] = field(default_factory=dict)
    #: the decision sites whose prompt shows a secret value (hidden from the seats not asked)
    secret_prompts: set[int] = field(default_factory=set)
    #: decision site -> the condition its options are filtered by, as the rules write it
    #: (the terminal says why something is not offered)
    site_filters: dict[int, str] = field(default_factory=dict)

    @classmethod
    def new(cls) -> ClassTables:
        """The tables of a game's engine class: template 0 is "Turn N" (``next_turn``) and
        routine 0 is the flow of play (``r_main``)."""
        return cls([(("Turn ", ""), ("int",))], [], ["main"])

    def copy(self) -> ClassTables:
        return ClassTables(list(self.templates), list(self.sites), list(self.routines))

    def template(self, parts: tuple[str, ...], kinds: tuple[str, ...]) -> int:
        key = (parts, kinds)
        try:
            return self.templates.index(key)
        except ValueError:
            self.templates.append(key)
            return len(self.templates) - 1

    def site(self, entry: tuple[Any, ...]) -> int:
        try:
            return self.sites.index(entry)
        except ValueError:
            self.sites.append(entry)
            return len(self.sites) - 1

    def rid(self, name: str) -> int:
        if name not in self.routines:
            self.routines.append(name)
        return self.routines.index(name)
