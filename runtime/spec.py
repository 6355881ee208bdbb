"""What a generated scenario module registers: ``SPEC = register(GameSpec.generated(...))``.

A :class:`GameSpec` is one playable scenario of a game: its engine object (the generated
class holding the rules as methods and the scenario's static data), the layout of its state,
and the tables the runtime renders log lines, prompts and options from.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .layout import ABI, HEADER, Layout, Slot, initial_state
from .machine import RulesError

__all__ = ["GameSpec", "ScenarioSpec", "Site", "Template"]


@dataclass(frozen=True)
class ScenarioSpec:
    """One playable set-up of a game."""

    id: str
    title: str
    seats: tuple[str, ...]
    seat_labels: tuple[str, ...]
    #: a turn beyond it is a TurnLimit ("game runs endlessly")
    max_turns: int = 1000


@dataclass(frozen=True)
class Template:
    """A text with placeholders: ``parts[0] + arg0 + parts[1] + ...``; ``kinds`` says how
    each argument is written (``int``, ``str``, ``bool``, ``player``, ``card``, ``e:<type>``,
    ``text`` (already words), ``list:<kind>``)."""

    parts: tuple[str, ...]
    kinds: tuple[str, ...]


@dataclass(frozen=True)
class Site:
    """A place in the rules that asks for a decision."""

    kind: str  # "choose-army", "yes-no", "choose-number", ...
    prompt: int  # template of the prompt
    options: str  # "player", "card", an entity type, "enum:<name>", "yes-no", "number"
    decline: int  # template of the "none" option's label (choose_optional), else -1
    routine: int  # the routine that asks
    ask_pc: int  # where it asks: re-entered to ask again
    simultaneous: bool

    @property
    def optional(self) -> bool:
        return self.decline >= 0


class GameSpec:
    """A compiled scenario: the engine, its state layout, and how to render its texts.

    ``scenarios`` holds just this scenario (``game/scenario`` names a spec).
    """

    def __init__(
        self,
        engine: Any,
        game: str,
        title: str,
        scenario: str,
        scenario_title: str,
        size: int,
        layout: tuple[tuple[Any, ...], ...],
        max_turns: int,
        fields: dict[str, Any],
        sources: tuple[str, ...] = (),
        refs: dict[str, str] | None = None,
    ) -> None:
        cls = type(engine)
        root = cls.__mro__[-2]  # the game's engine class, in the game's engine.py
        abi = getattr(__import__(root.__module__, fromlist=["ABI"]), "ABI", None)
        if abi != ABI:
            raise RulesError(
                f"the engine of {game!r} was generated for another version of rulecraft "
                f"(interface {abi}, this runtime needs {ABI}): run `rulecraft compile`"
            )
        self.engine = engine
        self.game = game
        self.title = title
        self.scenario = scenario
        self.scenario_title = scenario_title
        d = engine.d
        self.data = d
        self.seats: tuple[str, ...] = tuple(d["id_player"])
        self.seat_labels: tuple[str, ...] = tuple(d["name_player"])
        self.layout = Layout(size, tuple(Slot(*row[:9]) for row in layout))
        self.hidden_slots = tuple(s for s in self.layout.slots if s.visible != "all")
        #: every field by name (also the fixed ones): globals, player fields, record fields
        self.global_fields: tuple[str, ...] = tuple(fields["g"])
        self.player_fields: tuple[str, ...] = tuple(fields["p"])
        self.entity_fields: dict[str, tuple[str, ...]] = {
            t: tuple(names) for t, names in fields["e"].items()
        }
        self.header = (0, 0, 0, 0, 0, max_turns) + (None,) * (HEADER - 6)
        self.init = tuple(initial_state(size, self.header, layout))
        self.max_turns = max_turns
        self.sources = tuple(sources)
        self.templates = tuple(Template(tuple(p), tuple(k)) for p, k in cls.TEMPLATES)
        self.sites = tuple(Site(*s) for s in cls.SITES)
        self.routine_names: tuple[str, ...] = tuple(cls.ROUTINES)
        self.routines = engine.routines
        self.main_rid = self.routine_names.index("main")
        self.scenarios = {
            scenario: ScenarioSpec(
                scenario, scenario_title, self.seats, self.seat_labels, max_turns
            )
        }
        self.ids: dict[str, tuple[str, ...]] = {
            k[3:]: tuple(v) for k, v in d.items() if k.startswith("id_")
        }
        self.names: dict[str, tuple[str, ...]] = {
            k[5:]: tuple(v) for k, v in d.items() if k.startswith("name_")
        }
        for k, v in d.items():
            if k.startswith("lab_") and v is not None:
                self.names["label:" + k[4:]] = tuple(v)
        self.enums = {k[2:]: tuple(v) for k, v in d.items() if k.startswith("e_")}
        self.constants = {k[2:]: v for k, v in d.items() if k.startswith("c_")}
        #: fields declared hidden: path -> owner | none (compatibility with the old spec)
        self.visibility = {s.path: s.visible for s in self.layout.slots if s.visible != "all"}
        self.card_universe = "cards" if "s_p_cards" in d else None
        #: what a field of references refers to (``player``, ``card`` or an entity type), by
        #: path: the fields in the state (from the layout) and the fixed ones given in ``refs``
        self.refs: dict[str, str] = {
            **{s.path: s.ref for s in self.layout.slots if s.ref is not None and s.kind != "enum"},
            **(refs or {}),
        }

    @classmethod
    def generated(cls, engine: Any, **kw: Any) -> GameSpec:
        return cls(engine, **kw)

    def __repr__(self) -> str:
        return f"<GameSpec {self.game}/{self.scenario}>"

    # -- names of things

    def name_of(self, kind: str, i: Any) -> str:
        """The name of player, card or record ``i`` of ``kind`` (``player``, ``card`` or an
        entity type); a record is named by its label."""
        if i is None:
            return "none"
        names = self.names.get("label:" + kind) or self.names.get(kind)
        if names is None:
            return str(i)
        return str(names[i])

    def id_of(self, kind: str, i: Any) -> str:
        return self.ids[kind][i]

    def render(self, tid: int, args: tuple[Any, ...], S: list[Any] | None = None) -> str:
        """A template filled in with its arguments."""
        t = self.templates[tid]
        out = [t.parts[0]]
        for part, kind, value in zip(t.parts[1:], t.kinds, args, strict=True):
            out.append(self.word(kind, value, S))
            out.append(part)
        return "".join(out)

    def word(self, kind: str, value: Any, S: list[Any] | None = None) -> str:
        if kind.startswith("list:"):
            return ", ".join(self.word(kind[5:], v, S) for v in value)
        if kind in ("int", "str", "text"):
            return str(value)
        if kind == "bool":
            return "yes" if value else "no"
        if kind.startswith("e:"):
            tname = kind[2:]
            if value is not None and S is not None and hasattr(self.engine, "label_" + tname):
                return str(getattr(self.engine, "label_" + tname)(S, value))
            return self.name_of(tname, value)
        return self.name_of(kind, value)

    # -- options

    def option_id(self, site: Site, value: Any) -> str:
        kind = site.options
        if kind == "yes-no":
            return "yes" if value else "no"
        if value is None:
            return "none"
        if kind == "number":
            return f"number:{value}"
        if kind.startswith("enum:"):
            return f"{kind[5:]}:{value}"
        if kind == "any":
            return str(value)
        return f"{kind}:{self.ids[kind][value]}"

    def option_label(self, site: Site, value: Any, S: list[Any] | None = None) -> str:
        kind = site.options
        if kind == "yes-no":
            return "Yes" if value else "No"
        if kind == "number" or kind.startswith("enum:") or kind == "any":
            return str(value)
        return self.word(kind if kind in ("player", "card") else "e:" + kind, value, S)

    def options(self, d: tuple[Any, ...], S: list[Any] | None = None) -> list[tuple[str, str, Any]]:
        """``(id, label, value)`` of every option of pending decision ``d``."""
        site = self.sites[d[1]]
        out = [(self.option_id(site, v), self.option_label(site, v, S), v) for v in d[2]]
        if site.optional:
            n = len(self.templates[site.prompt].kinds)
            out.append(("none", self.render(site.decline, d[3][n:], S), None))
        return out

    def prompt(self, d: tuple[Any, ...], S: list[Any] | None = None) -> str:
        site = self.sites[d[1]]
        n = len(self.templates[site.prompt].kinds)
        return self.render(site.prompt, d[3][:n], S)

    # -- variants

    def with_constants(self, **values: Any) -> GameSpec:
        """The same scenario with some constants or switchable readings changed."""
        unknown = sorted(k for k in values if k not in self.constants)
        if unknown:
            known = ", ".join(sorted(self.constants))
            raise RulesError(f"no constant {unknown[0]!r} in {self.game} (known: {known})")
        d = dict(self.data)
        for k, v in values.items():
            old = self.constants[k]
            if type(v) is not type(old):
                raise RulesError(
                    f"constant {k!r} is {type(old).__name__}, not {type(v).__name__} ({v!r})"
                )
            d["c_" + k] = v
        engine = type(self.engine)(d)
        spec = object.__new__(GameSpec)
        spec.__dict__.update(self.__dict__)
        spec.engine = engine
        spec.data = d
        spec.routines = engine.routines
        spec.constants = {**self.constants, **values}
        spec.overrides = {**getattr(self, "overrides", {}), **values}
        return spec

    #: constants changed from the scenario's (by :meth:`with_constants`)
    overrides: dict[str, Any] = {}  # noqa: RUF012 - replaced, never changed in place

    def __hash__(self) -> int:
        return id(self)
