"""The data of one scenario: the layout of its state, its initial state and its static data.

Static data is everything that cannot change during a game: the seats, the records of every
entity type with their attributes, the cards, the constants, the fields no rule ever
changes, and indexes derived from them. The generated engine keeps it on the engine object
(``self.<name>``); the state holds only the fields some rule changes (see
``rulecraft.runtime.layout``).

Names of static data (keys of ``ScenarioData.data``, attributes of the engine object):

- ``o_g_F`` / ``o_p_F`` / ``o_e_T__F``: the offset of a field that changes;
- ``s_g_F`` / ``s_p_F`` / ``s_e_T__F``: a value (per seat, per record) that does not;
- ``n_K``, ``all_K``, ``id_K``, ``name_K``: count, indices, ids and names of players
  (``K = player``), cards (``card``) and records of entity type ``K``; ``lab_T`` the labels
  of records whose label reads only fixed data;
- ``card_A``: attribute ``A`` of every card; ``card_all``: the mask of every card;
- ``c_N``: constants and switchable readings; ``e_E``: the values of enum ``E``;
- ``k_K__ID``: the index of the player, card or record named ``ID`` in the rules;
- ``ix_T__A``: record indices by the value of attribute ``A``; ``mk_card__A``: masks of
  cards by the value of attribute ``A``; ``ix_player__F``: seats by the value of a player
  field no rule changes; ``ix_T__A_of_F``: records by the field ``F`` of the seat their
  attribute ``A`` names (``seat_attrs`` lists those attributes); ``ixt_T__A``: the same as
  ``ix_T__A`` as a tuple indexed by the player or record, none last (``ref_attrs`` lists
  the attributes naming one, with its kind); all derived at load time
  (``rulecraft.runtime.layout.engine_data``), with pairs ``ix_T__A__B`` of two of them;
- ``t_ID``: a table the rules look up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...runtime.layout import HEADER_NAMES, NO_REF, engine_data
from .. import ir
from ..board import axial as grid_axial
from ..board import step_costs
from ..effects import Assign, Attr, AugAssign, Move, MoveAll, Name, Reveal, Str, walk

# Header slots (rulecraft.runtime.layout); generated engines import their names (prelude).
HEADER = tuple(name.upper() for name in HEADER_NAMES)


class DataError(Exception):
    """Scenario data the compiler cannot lay out (the checker should have said so first)."""


# ---------------------------------------------------------------------------- fields


def field_key(scope: str, name: str, etype: str | None = None) -> str:
    """``g_F``, ``p_F`` or ``e_T__F``: the suffix of a field's offset or static data."""
    return f"e_{etype}__{name}" if scope == "e" else f"{scope}_{name}"


def written_fields(games: list[ir.Game]) -> set[tuple[str, str | None, str]]:
    """``(scope, entity type, field)`` of every field some rule of some scenario changes."""
    out: set[tuple[str, str | None, str]] = set()

    def target(t: Any) -> None:
        if isinstance(t, Name) and t.ref is not None and t.ref[0] == "global":
            out.add(("g", None, t.id))
        elif isinstance(t, Attr) and isinstance(t.ref, ir.Field):
            ot = t.obj.ty
            if ot is not None and ot.kind == "player":
                out.add(("p", None, t.name))
            elif ot is not None and ot.kind == "entity":
                out.add(("e", ot.name, t.name))

    for g in games:
        for r in g.routines():
            for node in walk(r.body):
                if isinstance(node, (Assign, AugAssign)):
                    target(node.target)
                elif isinstance(node, (Move, MoveAll)):
                    target(node.src_zone)
                    target(node.dst_zone)
                elif isinstance(node, Reveal):
                    target(node.target)
                    t = node.target.ty
                    if t is not None and t.kind == "entity" and g.entities[t.name].fog:
                        out.add(("e", t.name, ir.FOG_SEEN))  # a record shown in the fog
        # facts change by report decisions; who has seen a revealable value changes with it
        for scope, etype, f in g.facts():
            out.add((scope, etype, f.name))
        for scope, etype, name in list(out):
            fog = g.entities[etype].fog if scope == "e" and etype is not None else None
            if fog is not None and name == fog.at:
                out.add((scope, etype, ir.FOG_SEEN))  # a record that moves is hidden again
            if (scope, etype, name + "_seen") in out:
                continue
            fields = (
                g.globals
                if scope == "g"
                else g.player_fields
                if scope == "p"
                else g.entities[etype].fields  # type: ignore[index]
            )
            f = fields.get(name)
            if f is not None and f.revealable:
                out.add((scope, etype, name + "_seen"))
    return out


def table_ids(game: ir.Game) -> tuple[str, ...]:
    """The tables a `table` value can name (its index in this tuple): every table `lookup`
    reads, by id."""
    return tuple(sorted(t for t, table in game.tables.items() if table.kind in LOOKUP_KINDS))


LOOKUP_KINDS = ("range", "column", "matrix", "list")


def storage(t: ir.Type, f: ir.Field | None = None) -> str:
    """How a value of type ``t`` is stored: int, bool, str, enum, ref, set or seq."""
    if t.kind == "list":
        elem = t.elem.kind if t.elem is not None else "any"
        ordered = bool(getattr(f, "ordered", False))
        if elem in ("player", "card", "entity") and not ordered:
            return "set"
        return "seq"
    if t.kind in ("player", "card", "entity", "table"):
        return "ref"
    if t.kind in ("int", "bool", "str", "enum"):
        return t.kind
    return "seq" if t.kind == "list" else "str"


def ref_kind(t: ir.Type) -> str | None:
    """What an index of type ``t`` (or of its elements) refers to."""
    if t.kind == "list" and t.elem is not None:
        return ref_kind(t.elem)
    if t.kind in ("player", "card", "table"):
        return t.kind
    if t.kind == "entity":
        return t.name
    return None


def default_value(f: ir.Field) -> Any:
    t = f.type
    if t.kind == "int":
        return f.min if isinstance(f.min, int) else 0
    if t.kind == "bool":
        return False
    if t.kind == "list":
        return 0 if storage(t, f) == "set" else ()
    return None


@dataclass
class SlotInfo:
    """A field that changes during play: where it lives in the state."""

    scope: str  # g | p | e
    name: str
    etype: str | None
    offset: int
    count: int
    field: ir.Field
    kind: str  # storage()

    @property
    def key(self) -> str:
        return field_key(self.scope, self.name, self.etype)

    @property
    def path(self) -> str:
        return f"e.{self.etype}.{self.name}" if self.scope == "e" else f"{self.scope}.{self.name}"


@dataclass
class ScenarioData:
    """Everything the generated scenario module holds."""

    game: ir.Game
    sid: str
    slots: dict[str, SlotInfo] = field(default_factory=dict)  # key -> slot
    static: dict[str, ir.Field] = field(default_factory=dict)  # key -> field kept as data
    size: int = 0
    init: list[Any] = field(default_factory=list)
    data: dict[str, Any] = field(default_factory=dict)
    primary: dict[str, Any] = field(default_factory=dict)
    card_ids: list[str] = field(default_factory=list)
    records: dict[str, list[str]] = field(default_factory=dict)
    seats: list[tuple[str, str]] = field(default_factory=list)
    dynamic_labels: set[str] = field(default_factory=set)  # entity types labelled by fields
    header: tuple[Any, ...] = ()
    _recursive: set[str] | None = None
    #: functions the same in every scenario of the game (inlining them changes no scenario)
    stable: set[str] = field(default_factory=set)
    #: the references never none in every scenario (nonone.py): typed int in plain forms
    never_none: Any = None

    # -- what a field is

    def slot(self, scope: str, name: str, etype: str | None = None) -> SlotInfo | None:
        return self.slots.get(field_key(scope, name, etype))

    def is_static(self, scope: str, name: str, etype: str | None = None) -> bool:
        return field_key(scope, name, etype) in self.static

    def recursive(self) -> set[str]:
        """Functions that can call themselves (directly or through others): never inlined."""
        if self._recursive is None:
            from ..effects import Call

            calls = {
                r.name: {
                    n.func
                    for n in walk(r.body)
                    if isinstance(n, Call) and isinstance(n.ref, ir.Routine)
                }
                for r in self.game.functions.values()
            }
            out = set()
            for name in calls:
                seen: set[str] = set()
                todo = list(calls[name])
                while todo:
                    f = todo.pop()
                    if f == name:
                        out.add(name)
                        break
                    if f not in seen:
                        seen.add(f)
                        todo.extend(calls.get(f, ()))
            self._recursive = out
        return self._recursive

    def layout_rows(self) -> tuple[tuple[Any, ...], ...]:
        """``LAYOUT``: (path, offset, count, kind, refers to, visible, optional, min, max,
        initial values) of every field in the state."""
        rows = []
        for info in sorted(self.slots.values(), key=lambda s: s.offset):
            f = info.field
            lo, hi = f.min, f.max
            if info.scope == "e":
                if isinstance(lo, str):
                    lo = self.data.get(f"s_e_{info.etype}__{lo}")
                if isinstance(hi, str):
                    hi = self.data.get(f"s_e_{info.etype}__{hi}")
            elif isinstance(lo, str) or isinstance(hi, str):
                lo = lo if not isinstance(lo, str) else None
                hi = hi if not isinstance(hi, str) else None
            values = tuple(self.init[info.offset : info.offset + info.count])
            rows.append(
                (
                    info.path,
                    info.offset,
                    info.count,
                    info.kind,
                    f.type.name if f.type.kind == "enum" else ref_kind(f.type),
                    f.visible,
                    f.optional,
                    lo,
                    hi,
                    values,
                )
            )
        return tuple(rows)


def build_data(game: ir.Game, written: set[tuple[str, str | None, str]]) -> ScenarioData:
    """The layout, the initial state and the static data of a resolved scenario."""
    sc = game.scenario
    d = ScenarioData(game, sc.id)
    d.header = (0, 0, 0, 0, 0, sc.max_turns, None, None, None, None, None, None, None)
    d.seats = list(sc.seats)
    d.records = {t: list(sc.records.get(t, [])) for t in game.entities}
    cards = sorted(game.cards.values(), key=lambda c: c.index)
    d.card_ids = [c.id for c in cards]
    conv = Converter(d)
    data = d.data
    n_players = len(d.seats)

    # -- the layout: fields some rule changes
    offset = len(HEADER)
    init: list[Any] = list(d.header)

    def place(scope: str, name: str, etype: str | None, f: ir.Field, count: int) -> None:
        nonlocal offset
        info = SlotInfo(scope, name, etype, offset, count, f, storage(f.type, f))
        d.slots[info.key] = info
        data["o_" + info.key] = offset
        offset += count

    by_owner = sc.grouped()
    globals_given = by_owner.get("g.", {})
    for name, f in game.globals.items():
        key = field_key("g", name)
        if ("g", None, name) in written:
            place("g", name, None, f, 1)
            init.append(conv.value(globals_given.get(name), f))
        else:
            d.static[key] = f
            data["s_" + key] = conv.value(globals_given.get(name), f, static=True)
    for name, f in game.player_fields.items():
        key = field_key("p", name)
        if ("p", None, name) in written:
            place("p", name, None, f, n_players)
            init.extend(conv.value(sc.player_values(s).get(name), f) for s, _ in d.seats)
        else:
            d.static[key] = f
            data["s_" + key] = tuple(
                conv.value(sc.player_values(s).get(name), f, static=True) for s, _ in d.seats
            )
    for tname, et in game.entities.items():
        rids = d.records[tname]
        given = {rid: by_owner.get(f"e.{tname}.{rid}.", {}) for rid in rids}
        for name, f in {**et.attributes, **et.fields}.items():
            key = field_key("e", name, tname)
            if ("e", tname, name) in written and name in et.fields:
                place("e", name, tname, f, len(rids))
                init.extend(conv.value(given[rid].get(name), f) for rid in rids)
            else:
                d.static[key] = f
                data["s_" + key] = tuple(
                    conv.value(given[rid].get(name), f, static=True) for rid in rids
                )
    # fixed record attributes that name a seat: the engine's data indexes their records by
    # the seat's fixed player fields too (``ix_T__A_of_F``, runtime.layout.engine_data)
    seat_attrs = tuple(
        f"{tname}__{name}"
        for tname, et in game.entities.items()
        for name, f in et.attributes.items()
        if f.type == ir.PLAYER and not f.optional and f"s_e_{tname}__{name}" in data
    )
    if seat_attrs and any(k.startswith("s_p_") for k in data):
        data["seat_attrs"] = seat_attrs
    # fixed record attributes that name a player or a record: their indexes as tuples too
    # (``ixt_T__A``, indexed by the value: no dict lookup)
    ref_attrs = {
        f"{tname}__{name}": "player" if f.type == ir.PLAYER else f.type.name
        for tname, et in game.entities.items()
        for name, f in et.attributes.items()
        if (f.type == ir.PLAYER or f.type.kind == "entity") and f"s_e_{tname}__{name}" in data
    }
    if ref_attrs:
        data["ref_attrs"] = ref_attrs
    d.size = offset
    for info in d.slots.values():  # a reference slot holds -1 for none (an int-only state)
        if info.kind == "ref":
            for k in range(info.offset, info.offset + info.count):
                init[k] = NO_REF if init[k] is None else init[k]
    d.init = init
    if game.facts():
        data["facts"] = fact_domains(game, d)
        data["fact_titles"] = {
            (f"e.{etype}.{f.name}" if scope == "e" else f"{scope}.{f.name}"): f.title or ""
            for scope, etype, f in game.facts()
        }
    assert len(init) == offset, (len(init), offset)
    # how the board names each field, and what it leaves out (`title:`, `words:`, `internal:`)
    scoped = [("g", "", game.globals), ("p", "", game.player_fields)] + [
        ("e", t, {**et.attributes, **et.fields}) for t, et in game.entities.items()
    ]
    titles: dict[str, str] = {}
    scales: dict[str, int] = {}
    internal: list[str] = [f"e.{t}" for t, et in game.entities.items() if et.internal]
    for scope, etype, fields in scoped:
        for f in fields.values():
            path = f"e.{etype}.{f.name}" if scope == "e" else f"{scope}.{f.name}"
            if f.scale != 1:
                scales[path] = f.scale
            spelled = " ".join(game.words.get(w, w) for w in f.name.split("_"))
            if f.title or spelled != f.name.replace("_", " "):
                titles[path] = f.title or spelled  # `title:`, else the game's spelling
            if f.internal:
                internal.append(path)
    data["field_titles"] = titles
    if scales:  # fields that count fractions (`scale:`), printed divided
        data["field_scales"] = scales
    data["internal"] = tuple(internal)
    data["board_constants"] = tuple(
        (c.name, c.title or c.name.replace("_", " ")) for c in game.constants.values() if c.board
    )
    # the board displays (`board:` in rules.yaml): (title, method of procedure board__<name>)
    data["board_displays"] = tuple((title, "p_board__" + name) for name, title in game.displays)

    # -- who and what exists
    data["id_player"] = tuple(s for s, _ in d.seats)
    data["name_player"] = tuple(n for _, n in d.seats)
    data["id_card"] = tuple(d.card_ids)
    data["name_card"] = tuple(c.name for c in cards)
    data["text_card"] = tuple(c.text for c in cards)
    data["unplayable_card"] = tuple(c.unplayable for c in cards)
    data["playable_cards"] = tuple(c.id for c in cards if c.playable is not None)
    for aname, f in game.card_attributes.items():
        data[f"card_{aname}"] = tuple(conv.value_of(c.attributes.get(aname), f.type) for c in cards)
    for tname in game.entities:
        rids = d.records[tname]
        data[f"id_{tname}"] = tuple(rids)
        data[f"name_{tname}"] = tuple(
            conv.record_name(tname, rid, by_owner.get(f"e.{tname}.{rid}.", {})) for rid in rids
        )
    for ename, e in game.enums.items():
        data[f"e_{ename}"] = tuple(e.values)
    if game.board is not None:
        data.update(board_data(game.board, conv.index[game.board.entity]))
    if any(f.type.kind == "table" for f in _all_fields(game)) or _reads_result_tables(game):
        data["id_table"] = table_ids(game)
        data["name_table"] = tuple(game.tables[t].title for t in data["id_table"])
    # where the flow of play is declared: errors of the turn loop (the turn limit) name it
    data["flow_origin"] = str(game.flow_pos or game.origin.pos)
    consts = {n: c.value for n, c in game.constants.items()}
    consts.update(sc.constants)
    for name, value in sorted(consts.items()):
        data[f"c_{name}"] = value
    # which constants are switchable readings of the rule text (game.yaml choices)
    data["choice_names"] = tuple(n for n, c in game.constants.items() if c.is_choice)
    # labels that read only fixed data are names computed here
    for tname, et in game.entities.items():
        labels = conv.static_labels(tname, et)
        if labels is None:
            d.dynamic_labels.add(tname)
            data[f"lab_{tname}"] = None  # read from the state: the engine's label_<type>
        else:
            data[f"lab_{tname}"] = labels
    d.primary = {
        k: v
        for k, v in data.items()
        if not k.startswith("o_")
        and not (k.startswith("lab_") and v is not None and v == data.get("name_" + k[4:]))
    }
    d.data = engine_data(d.primary, d.layout_rows())
    return d


def board_data(board: ir.Board, index: dict[str, int]) -> dict[str, Any]:
    """The grid of a board for ``distance``, ``crosses`` and cost schemes: ``bd_axial`` (each
    record's axial coordinates, None for a box), ``bd_side__F`` (per record, the neighbours
    across a hexside with feature ``F``), ``bd_cost__S`` (per record, the steps cost scheme
    ``S`` allows, with their costs)."""
    out: dict[str, Any] = {}
    n = len(index)
    axial: list[Any] = [None] * n
    for cell in board.cells:
        if cell.number and cell.id in index:
            axial[index[cell.id]] = grid_axial(cell.column, cell.row, board.shifted)
    out["bd_axial"] = tuple(axial)
    for f in board.features:
        across: list[list[int]] = [[] for _ in range(n)]
        for (a, b), names in board.sides.items():
            if f in names:
                across[index[a]].append(index[b])
                across[index[b]].append(index[a])
        out[f"bd_side__{f}"] = tuple(tuple(sorted(x)) for x in across)
    for scheme in board.costs:
        out[f"bd_cost__{scheme}"] = step_costs(board, scheme, index)
    return out


def fact_domains(
    game: ir.Game, d: ScenarioData
) -> tuple[tuple[int, int, tuple[Any, ...], bool], ...]:
    """``(offset, count, values, is a reference)`` of every external fact: the values a
    report may give it (None for none)."""
    out = []
    for scope, etype, f in game.facts():
        info = d.slot(scope, f.name, etype)
        assert info is not None, f.name
        t = f.type
        values: tuple[Any, ...]
        if t.kind == "bool":
            values = (False, True)
        elif t.kind == "int":
            assert isinstance(f.min, int) and isinstance(f.max, int)
            values = tuple(range(f.min, f.max + 1))
        elif t.kind == "enum":
            values = tuple(game.enums[t.name].values)
        elif t.kind == "player":
            values = tuple(range(len(d.seats)))
        else:
            values = tuple(range(len(d.records[t.name])))
        if f.optional:
            values = (*values, None)
        # a reference slot holds -1 for none: report_options and report convert
        out.append((info.offset, info.count, values, info.kind == "ref"))
    return tuple(out)


def _reads_result_tables(game: ir.Game) -> bool:
    """Whether some rule reads which table a result came from (``r.table``)."""
    return any(
        isinstance(n, Attr)
        and n.name == "table"
        and n.obj.ty is not None
        and n.obj.ty.kind == "result"
        for r in game.routines()
        for n in walk(r.body)
    )


def _all_fields(game: ir.Game) -> list[ir.Field]:
    out = [*game.globals.values(), *game.player_fields.values()]
    for et in game.entities.values():
        out += [*et.attributes.values(), *et.fields.values()]
    return out


class Converter:
    """Turns the rules' ids in scenario values into what the state and the data hold."""

    def __init__(self, d: ScenarioData) -> None:
        self.d = d
        self.seats = [s for s, _ in d.seats]
        self.index = {t: {rid: i for i, rid in enumerate(ids)} for t, ids in d.records.items()}
        self.cards = {cid: i for i, cid in enumerate(d.card_ids)}

    def value(self, v: ir.Value | None, f: ir.Field, static: bool = False) -> Any:
        """The value of a field in the state, or (``static``) in the data: fixed lists of
        references keep the order the scenario gives (each element once)."""
        if v is None:
            if static and f.type.kind == "list":
                return ()
            return default_value(f)
        return self.value_of(v.value, f.type, None if static else f)

    def value_of(self, v: Any, t: ir.Type, f: ir.Field | None = None) -> Any:
        if v is None:
            if t.kind == "list":
                return 0 if storage(t, f) == "set" else ()
            return None
        if t.kind == "player":
            return self.seats.index(v)
        if t.kind == "entity":
            return self.index[t.name][v]
        if t.kind == "card":
            return self.cards[v]
        if t.kind == "table":
            return table_ids(self.d.game).index(v)
        if t.kind == "list":
            assert t.elem is not None
            items = [self.value_of(x, t.elem) for x in v]
            if f is None:
                if t.elem.kind in ("player", "card", "entity"):
                    # fixed data: each element once, in the order given
                    return tuple(dict.fromkeys(items))
                return tuple(items)
            if storage(t, f) == "set":
                mask = 0
                for i in items:
                    mask |= 1 << i
                return mask
            return tuple(items)
        if t.kind == "enum":
            return str(v)
        return v

    def record_name(self, tname: str, rid: str, given: dict[str, ir.Value]) -> str:
        """A record's given name; a seat's numbered pieces are named after the seat."""
        if "name" in given:
            return str(given["name"].value)
        if "owner" in given and "number" in given:
            seat = dict(self.d.seats).get(given["owner"].value, given["owner"].value)
            return f"{seat} {tname} {given['number'].value}"
        return rid

    def static_labels(self, tname: str, et: ir.EntityType) -> tuple[str, ...] | None:
        """Every record's label, if the label reads only fixed data (else None)."""
        data = self.d.data
        rids = self.d.records[tname]
        if et.label is None:
            return tuple(data[f"name_{tname}"])
        label = et.label
        assert isinstance(label, Str)
        for p in label.parts:
            if isinstance(p, str):
                continue
            for node in walk(p):
                if isinstance(node, Name) and node.ref is not None and node.ref[0] == "self":
                    member = node.ref[1]
                    if node.id not in ("id", "name") and not self.d.is_static(
                        "e", member.name, tname
                    ):
                        return None
            if not isinstance(p, Name):
                return None
        out = []
        for i in range(len(rids)):
            text = []
            for p in label.parts:
                if isinstance(p, str):
                    text.append(p)
                    continue
                assert isinstance(p, Name)
                if p.id == "id":
                    text.append(rids[i])
                    continue
                if p.id == "name":
                    text.append(data[f"name_{tname}"][i])
                    continue
                value = data[f"s_e_{tname}__{p.id}"][i]
                text.append(self.render(value, p.ty))
            out.append("".join(text))
        return tuple(out)

    def render(self, value: Any, t: ir.Type) -> str:
        data = self.d.data
        if value is None:
            return "none"
        if t.kind == "player":
            return data["name_player"][value]
        if t.kind == "card":
            return data["name_card"][value]
        if t.kind == "entity":
            labels = data.get(f"lab_{t.name}") or data[f"name_{t.name}"]
            return labels[value]
        if t.kind == "bool":
            return "yes" if value else "no"
        return str(value)
