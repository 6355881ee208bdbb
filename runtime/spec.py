"""What a generated scenario module registers: ``SPEC = register(GameSpec.generated(...))``.

A :class:`GameSpec` is one playable scenario of a game: its engine object (the generated
class holding the rules as methods and the scenario's static data), the layout of its state,
and the tables the runtime renders log lines, prompts and options from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import deals
from .layout import ABI, HEADER, TURN, Layout, Slot, initial_state
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
        if kind == "report":
            return self.report_label(value, S)
        if kind == "deal":
            return "nothing" if value is None else deals.label(self, value, S)
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

    # -- external facts

    def fact_at(self, k: int) -> tuple[Slot, int]:
        """The fact slot holding state index ``k`` and the index in it."""
        for slot in self.layout.slots:
            if slot.offset <= k < slot.offset + slot.count:
                return slot, k - slot.offset
        raise RulesError(f"no field at state index {k}")

    def _fact_value_id(self, slot: Slot, v: Any) -> str:
        if slot.kind == "bool":
            return "yes" if v else "no"
        if v is None:
            return "none"
        if slot.kind == "ref" and slot.ref is not None:
            return self.ids[slot.ref][v]
        return str(v)

    def _fact_where(self, slot: Slot, i: int) -> str:
        if slot.scope == "g":
            return slot.name
        if slot.scope == "p":
            return f"{self.seats[i]}.{slot.name}"
        return f"{slot.etype}.{self.ids[slot.etype or ''][i]}.{slot.name}"

    def parse_report(self, option_id: str) -> tuple[int, Any] | None:
        """The change ``report:<where>=<value>`` names: ``(state index, value)``."""
        if not option_id.startswith("report:"):
            return None
        where, eq, word = option_id[7:].rpartition("=")
        if not eq:
            return None
        parts = where.split(".")
        try:
            if len(parts) == 1:
                slot, i = self.layout.by_path["g." + parts[0]], 0
            elif len(parts) == 2:
                slot, i = self.layout.by_path["p." + parts[1]], self.seats.index(parts[0])
            else:
                slot = self.layout.by_path[f"e.{parts[0]}.{parts[2]}"]
                i = self.ids[parts[0]].index(parts[1])
        except (KeyError, ValueError):
            return None
        value: Any
        if slot.kind == "bool":
            if word not in ("yes", "no"):
                return None
            value = word == "yes"
        elif word == "none":
            value = None
        elif slot.kind == "int":
            if not word.lstrip("-").isdigit():
                return None
            value = int(word)
        elif slot.kind == "ref" and slot.ref is not None:
            if word not in self.ids[slot.ref]:
                return None
            value = self.ids[slot.ref].index(word)
        else:
            value = word
        return (slot.offset + i, value)

    def report_id(self, change: tuple[int, Any]) -> str:
        slot, i = self.fact_at(change[0])
        return f"report:{self._fact_where(slot, i)}={self._fact_value_id(slot, change[1])}"

    def report_label(self, change: tuple[int, Any], S: list[Any] | None = None) -> str:
        slot, i = self.fact_at(change[0])
        title = self.data.get("fact_titles", {}).get(slot.path) or slot.name.replace("_", " ")
        title = title[0].upper() + title[1:]
        if slot.scope == "p":
            title = f"{self.seat_labels[i]}: {title}"
        elif slot.scope == "e":
            title = f"{self.name_of(slot.etype or '', i)}: {title}"
        v = change[1]
        if slot.kind == "bool":
            word = "yes" if v else "no"
        elif slot.kind == "ref" and slot.ref is not None:
            word = self.name_of(slot.ref, v)
        else:
            word = str(v)
        return f"{title} → {word}"

    # -- allocations

    def split_id(self, kind: str, value: tuple[Any, ...]) -> str:
        counts = _counts(value)
        if not counts:
            return "alloc:none"
        parts = [f"{self.target_id(kind, t)}={n}" for t, n in counts.items()]
        return "alloc:" + ",".join(parts)

    def target_id(self, kind: str, t: Any) -> str:
        if kind.startswith("enum:") or kind == "any":
            return str(t)
        return self.ids[kind][t]

    def split_label(self, kind: str, value: tuple[Any, ...], S: list[Any] | None) -> str:
        counts = _counts(value)
        if not counts:
            return "Nothing"
        wk = kind if kind in ("player", "card") or ":" in kind else "e:" + kind
        return ", ".join(f"{self.word(wk, t, S)} {n}" for t, n in counts.items())

    def parse_split(self, split: Any, kind: str, option_id: str) -> tuple[Any, ...] | None:
        """The allocation an id such as ``alloc:bulgaria=2,greece=1`` names, if it is one of
        ``split``'s options (None otherwise)."""
        if not option_id.startswith("alloc:"):
            return None
        body = option_id[6:]
        by_id = {self.target_id(kind, t): t for t in split.targets}
        counts: dict[Any, int] = {}
        if body != "none":
            for part in body.split(","):
                name, eq, n = part.partition("=")
                if not eq or name not in by_id or not n.isdigit() or by_id[name] in counts:
                    return None
                counts[by_id[name]] = int(n)
        value = split.of_counts(counts)
        return value if value in split else None

    def find_option(
        self, d: tuple[Any, ...], option_id: str, S: list[Any] | None = None
    ) -> tuple[bool, Any]:
        """``(found, value)`` of the option ``option_id`` of pending decision ``d``."""
        site = self.sites[d[1]]
        if site.options.startswith("alloc:"):
            value = self.parse_split(d[2], site.options[6:], option_id)
            return value is not None, value
        if site.options == "report":
            if option_id == "done":
                return True, None
            change = self.parse_report(option_id)
            return (change is not None and change in d[2]), change
        if site.options == "offer":
            if option_id == "pass":
                return True, None
            deal = deals.parse(self, option_id)
            if isinstance(deal, str) or S is None or deals.check(self, S, d[2], deal):
                return False, None
            return True, deal
        for oid, _label, value in self.options(d, S):
            if oid == option_id:
                return True, value
        return False, None

    def option_id(self, site: Site, value: Any) -> str:
        kind = site.options
        if kind == "report":
            return "done" if value is None else self.report_id(value)
        if kind == "offer":
            return "pass" if value is None else deals.deal_id(self, value)
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
        if kind == "report":
            return self.report_label(value, S)
        if kind == "offer":
            return "Pass" if value is None else deals.label(self, value, S)
        if kind == "yes-no":
            return "Yes" if value else "No"
        if kind == "number" or kind.startswith("enum:") or kind == "any":
            return str(value)
        return self.word(kind if kind in ("player", "card") else "e:" + kind, value, S)

    def options(self, d: tuple[Any, ...], S: list[Any] | None = None) -> list[tuple[str, str, Any]]:
        """``(id, label, value)`` of every option of pending decision ``d``."""
        site = self.sites[d[1]]
        if site.options.startswith("alloc:"):
            kind, split = site.options[6:], d[2]

            def split_row(i: int) -> tuple[str, str, Any]:
                v = split[i]
                return (self.split_id(kind, v), self.split_label(kind, v, S), v)

            return OptionRows(len(split), split_row)  # type: ignore[return-value]
        if site.options in ("report", "offer"):
            # numbered options, then the decline ("done": nothing changed; "pass")
            n = len(self.templates[site.prompt].kinds)
            word = "done" if site.options == "report" else "pass"
            decline = (word, self.render(site.decline, d[3][n:], S), None)
            values = d[2]
            if site.options == "report":
                ident, label = self.report_id, (lambda v: self.report_label(v, S))
            else:
                ident, label = (
                    (lambda v: deals.deal_id(self, v)),
                    (lambda v: deals.label(self, v, S)),
                )

            def row(i: int) -> tuple[str, str, Any]:
                if i == len(values):
                    return decline
                v = values[i]
                return (ident(v), label(v), v)

            return OptionRows(len(values) + 1, row)  # type: ignore[return-value]
        out = [(self.option_id(site, v), self.option_label(site, v, S), v) for v in d[2]]
        if site.optional:
            n = len(self.templates[site.prompt].kinds)
            decline = "done" if site.options == "report" else "none"
            out.append((decline, self.render(site.decline, d[3][n:], S), None))
        return out

    def why_refused(self, d: tuple[Any, ...], option_id: str, S: list[Any]) -> str | None:
        """Why an offer ``option_id`` is not a legal answer to pending decision ``d`` (a
        `propose`), in words; None if it is not an offer."""
        if self.sites[d[1]].options != "offer" or not option_id.startswith("offer:"):
            return None
        deal = deals.parse(self, option_id)
        if isinstance(deal, str):
            return deal
        return deals.check(self, S, d[2], deal)

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

    def with_after_setup(self, fn: Callable[[list[Any]], None]) -> GameSpec:
        """The same scenario, calling ``fn(S)`` once when set-up is over, before turn 1 starts.

        Examples of play write their starting position there: after the set-up's questions are
        answered and before anything of the first turn happens."""
        engine = type(self.engine)(self.data)
        start = self.data["flow"].index(None)  # the first turn starts after the set-up steps

        def first_turn(S: list[Any]) -> None:
            if S[TURN] == 0:
                fn(S)
            engine.next_turn(S)

        for attr in ("flow_r", "flow_q"):
            flow = list(getattr(engine, attr))
            flow[start] = (first_turn, False)
            setattr(engine, attr, tuple(flow))
        spec = object.__new__(GameSpec)
        spec.__dict__.update(self.__dict__)
        spec.engine = engine
        spec.routines = engine.routines
        return spec

    #: constants changed from the scenario's (by :meth:`with_constants`)
    overrides: dict[str, Any] = {}  # noqa: RUF012 - replaced, never changed in place

    def __hash__(self) -> int:
        return id(self)


class OptionRows:
    """The options of a decision with too many to list (an allocation, a report) as
    ``(id, label, value)`` rows, each made when asked for: ``row(i)`` makes row ``i``."""

    def __init__(self, n: int, row: Any) -> None:
        self.n, self.row = n, row

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> tuple[str, str, Any]:
        if i < 0:
            i += self.n
        if not 0 <= i < self.n:
            raise IndexError(i)
        return self.row(i)

    def __iter__(self) -> Any:
        for i in range(self.n):
            yield self.row(i)


def _counts(split: tuple[Any, ...]) -> dict[Any, int]:
    """Points per target of a split (targets with repeats), in order."""
    counts: dict[Any, int] = {}
    for t in split:
        counts[t] = counts.get(t, 0) + 1
    return counts
