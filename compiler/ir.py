"""The model of a game (the IR): the single source for generated code, sheets and reports.

The builder (`builder.py`) fills it from the rules files; the checker (`checker.py`) gives
every effect a type; the code generator (`codegen.py`) reads it.  Every element keeps the
position it was declared at.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from .diagnostics import Position
from .effects import Expr, Stmt, Str

# ---------------------------------------------------------------------------- types


@dataclass(frozen=True)
class Type:
    """A type of the effect language.

    ``kind`` is one of: int, bool, str, player, card, entity (``name`` = entity type),
    enum (``name`` = enum), list (``elem``), none, void, any, table, deal, result (``name`` =
    the table, if known; ``elem`` = int for a result of `resolve`, which also has a roll and a
    column).
    """

    kind: str
    name: str = ""
    elem: Type | None = None

    def __str__(self) -> str:
        if self.kind == "list":
            return f"list of {self.elem}"
        if self.kind in ("entity", "enum"):
            return self.name
        if self.kind == "result":
            return "table result"
        return self.kind


INT = Type("int")
BOOL = Type("bool")
STR = Type("str")
PLAYER = Type("player")
CARD = Type("card")
TABLE = Type("table")
DEAL = Type("deal")  # a deal of a negotiation window (runtime/deals.py)
NONE = Type("none")
VOID = Type("void")
ANY = Type("any")


def list_of(t: Type) -> Type:
    return Type("list", elem=t)


def result(table: str = "") -> Type:
    return Type("result", name=table)


def rolled(table: str) -> Type:
    """The result of `resolve`: a table result that also has ``roll`` and ``column``."""
    return Type("result", name=table, elem=INT)


def entity(name: str) -> Type:
    return Type("entity", name=name)


def enum(name: str) -> Type:
    return Type("enum", name=name)


# ---------------------------------------------------------------------------- declarations


@dataclass
class Origin:
    """Where a declaration came from: its position and the rules-index ids it implements."""

    pos: Position
    rules: tuple[str, ...] = ()
    doc: str = ""


@dataclass
class Field:
    name: str
    type: Type
    origin: Origin
    optional: bool = False
    visible: str = "all"  # all | owner | none
    min: int | str | None = None  # an int, or the name of an attribute of the same record
    max: int | str | None = None
    const: bool = False
    ordered: bool = False  # a list field kept in order (a deck), not a set
    fact: bool = False  # external state: set by the scenario and by `report` decisions
    revealable: bool = False  # a hidden value `reveal` may show to chosen players
    title: str = ""  # how players call it (game.yaml `title:`), else made from the name
    internal: bool = False  # bookkeeping the board does not show (`internal: true`)
    scale: int = 1  # an int that counts 1/scale units (`scale: 2`: halves), printed divided


@dataclass
class Fog:
    """Fog of war over an entity type: others see that the owner has records at a position
    (the field ``at``), not which records nor their other fields, unless shown to them."""

    at: str
    label: str = "{owner} force of unknown size"
    public: tuple[str, ...] = ()
    fields: tuple[str, ...] = ()  # the fields the fog hides (the position first)
    place: str = ""  # the entity type of the position


#: the field of a fogged record that holds who has seen it (`reveal r to p` adds to it)
FOG_SEEN = "seen"


@dataclass
class EntityType:
    name: str
    plural: str
    origin: Origin
    label: Str | None
    attributes: dict[str, Field] = field(default_factory=dict)
    fields: dict[str, Field] = field(default_factory=dict)
    deck: bool = False  # records are cards: each in exactly one place (`deck: true`)
    internal: bool = False  # records players do not see as pieces (`internal: true`)
    fog: Fog | None = None  # fog of war: others see where a record is, not which (`fog:`)

    def member(self, name: str) -> Field | None:
        return self.fields.get(name) or self.attributes.get(name)


@dataclass
class EnumDecl:
    name: str
    values: tuple[str, ...]
    origin: Origin


@dataclass
class Constant:
    """A named value (a number, a flag, or a rulebook reading a designer can switch)."""

    name: str
    type: Type
    value: Any
    origin: Origin
    is_choice: bool = False
    title: str = ""  # how players call it (`title:`)
    board: bool = False  # shown on the terminal's board (`board: true`)


@dataclass
class Routine:
    """A function, procedure, card effect or flow step: named code with parameters."""

    name: str
    kind: str  # function | procedure | card | phase | main
    params: list[tuple[str, Type]]
    returns: Type
    body: list[Stmt]
    origin: Origin
    suspends: bool = False  # set by the checker: may wait for a decision


@dataclass
class Hook:
    """Code that runs before or after a procedure, with the procedure's parameters."""

    name: str
    when: str  # before | after
    target: str
    body: list[Stmt]
    origin: Origin


@dataclass
class LastingChange:
    """What a lasting effect changes while in force (`effects:` in rules.yaml): ``kind``
    modifies (an int function: ``by`` added), forbids or permits (a bool function), or
    replaces (a procedure: ``body`` runs instead); each where ``where`` holds."""

    kind: str
    target: str
    pos: Position
    where: Expr | None = None
    by: Expr | None = None
    body: list[Stmt] | None = None
    text: str = ""  # how the sheets print it
    woven: bool = False  # set per scenario: the routine it changes is there and fits


@dataclass
class LastingEffect:
    """A lasting effect (`effects:` in rules.yaml, compiler/lasting.py): a rule change put in
    force by ``start``, scoped to the game or to one player or record, ended by ``end``, by
    ``until`` (checked after every flow step and after the procedures of ``check_after``)
    or when the flow step ``ends_at`` ends."""

    name: str
    title: str
    origin: Origin
    scope: tuple[str, Type] | None
    changes: list[LastingChange] = field(default_factory=list)
    until: Expr | None = None
    until_text: str = ""
    ends_at: tuple[str, Position] | None = None
    check_after: list[tuple[str, Position]] = field(default_factory=list)


@dataclass
class Card:
    id: str
    name: str
    attributes: dict[str, Any]
    origin: Origin
    effect: Routine
    playable: Expr | None = None
    index: int = 0
    text: str = ""  # the card's printed text (`text:`), for players
    unplayable: str = ""  # why it may not be played when `playable` fails (`unplayable:`)


@dataclass
class Value:
    """A value a scenario gives, and where it was written (file, line, layer)."""

    value: Any
    pos: Position
    layer: str  # the scenario id whose file wrote it
    shared: bool = False  # written under `players: all:`
    doc: Any = field(default=None, repr=False, compare=False)  # where it was written
    ypath: tuple = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Value:
        # A value is replaced, never changed in place: models copied per scenario share it
        # (a board of 2,400 hexes made copying a model 7 s).
        return self

    def item_pos(self, index: int) -> Position:
        """Position of element ``index`` of a list value."""
        return self.doc.pos((*self.ypath, index)) if self.doc is not None else self.pos


@dataclass
class Scenario:
    """The starting values of one scenario, each with its provenance.

    ``values`` maps a dotted path to a `Value`: ``c.<constant>``, ``g.<global>``,
    ``p.<seat>.<field>``, ``e.<type>.<record>.<field>``; ``records`` lists the record ids of
    every entity type in order.
    """

    id: str
    title: str
    origin: Origin
    seats: list[tuple[str, str]]  # (id, display name)
    values: dict[str, Value] = field(default_factory=dict)
    records: dict[str, list[str]] = field(default_factory=dict)
    base: str | None = None
    layers: tuple[str, ...] = ()  # the files applied, base first
    max_turns: int = 1000
    #: tooling, not rules: bot games in `rulecraft simulate` stop here (``simulate:`` block)
    bot_max_turns: int | None = None
    doc: Any = field(default=None, repr=False)  # the scenario's own loader.Document
    #: the ids of the tables that are this scenario's play aids (`play_aids:`, else its base's)
    play_aids: tuple[str, ...] = ()

    def __deepcopy__(self, memo: dict[int, Any]) -> Scenario:
        # Values and documents are shared (never changed in place); the containers a scenario
        # based on this one may change are new (a copy of thousands of values, entry by entry,
        # was a third of copying a model with a board of 2,400 hexes)
        copied = replace(
            self,
            seats=list(self.seats),
            values=dict(self.values),
            records={t: list(ids) for t, ids in self.records.items()},
        )
        memo[id(self)] = copied
        return copied

    def prefixed(self, prefix: str) -> dict[str, Value]:
        return {k[len(prefix) :]: v for k, v in self.values.items() if k.startswith(prefix)}

    def grouped(self) -> dict[str, dict[str, Value]]:
        """Every value by the path of its owner (``"e.army.blue_1."``) and its own name: one
        pass over the values, for callers that read every record (a scenario may have
        thousands)."""
        out: dict[str, dict[str, Value]] = {}
        for k, v in self.values.items():
            head, _, last = k.rpartition(".")
            out.setdefault(head + ".", {})[last] = v
        return out

    @property
    def constants(self) -> dict[str, Any]:
        return {k: v.value for k, v in self.prefixed("c.").items()}

    @property
    def globals(self) -> dict[str, Any]:
        return {k: v.value for k, v in self.prefixed("g.").items()}

    def player_values(self, seat: str) -> dict[str, Value]:
        return self.prefixed(f"p.{seat}.")

    def record_values(self, etype: str, rid: str) -> dict[str, Value]:
        return self.prefixed(f"e.{etype}.{rid}.")


@dataclass
class BoardKind:
    """A kind of terrain or of hexside feature of a board (``board.yaml``)."""

    name: str
    title: str
    color: str
    assumed: str = ""  # why it is assumed (not printed by the rulebook), or ""


@dataclass
class BoardCell:
    """A hex (``number`` "0203") or a box off the map (``number`` "") of a board: a record."""

    id: str
    number: str
    column: int
    row: int
    terrain: str | None
    name: str
    pos: Position
    assumed: str = ""
    #: values of the entity's other attributes given in board.yaml, with their paths
    values: dict[str, tuple[Any, tuple]] = field(default_factory=dict)


@dataclass
class Board:
    """A hex grid declared as data (``board.yaml``): its hexes and boxes are the records of
    ``entity``; the compiler computed their neighbours (``adjacent``)."""

    entity: str
    title: str
    origin: Origin
    columns: tuple[int, int]
    rows: tuple[int, int]
    shifted: str  # "even" or "odd": the columns half a hex lower
    terrain: dict[str, BoardKind]
    features: dict[str, BoardKind]
    default: str
    cells: list[BoardCell]
    #: every cell's neighbours, by id, in the order of the cells
    adjacent: dict[str, list[str]]
    #: hexside features: (id, id) with the lower number first -> feature names
    sides: dict[tuple[str, str], tuple[str, ...]]
    #: cost schemes: name -> (terrain costs, hexside costs, assumed); None: impassable
    costs: dict[str, tuple[dict[str, int | None], dict[str, int | None], str]]
    assumed: str = ""
    doc: Any = field(default=None, repr=False, compare=False)  # board.yaml's Document
    #: the hex attribute whose borders the map draws (`borders:`), or ""
    borders: str = ""

    def __deepcopy__(self, memo: dict[int, Any]) -> Board:
        # Built once from board.yaml and never changed after: the models copied per scenario
        # share it (copying a board of 2,400 hexes was a third of copying its model).
        return self


@dataclass
class Game:
    id: str
    title: str
    source: str
    origin: Origin
    #: how words of names are spelled for players (`words:` in game.yaml): {"vp": "VP"}
    words: dict[str, str] = field(default_factory=dict)
    enums: dict[str, EnumDecl] = field(default_factory=dict)
    constants: dict[str, Constant] = field(default_factory=dict)
    globals: dict[str, Field] = field(default_factory=dict)
    player_fields: dict[str, Field] = field(default_factory=dict)
    entities: dict[str, EntityType] = field(default_factory=dict)
    card_attributes: dict[str, Field] = field(default_factory=dict)
    cards: dict[str, Card] = field(default_factory=dict)
    functions: dict[str, Routine] = field(default_factory=dict)  # functions and procedures
    setup: list[Routine] = field(default_factory=list)
    turn: list[Routine] = field(default_factory=list)
    end_of_turn: list[Routine] = field(default_factory=list)
    main: Routine | None = None
    flow_pos: Position | None = None
    hooks: dict[str, Hook] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)  # id -> tables.Table (rules/<game>/tables)
    #: some table had errors and was left out (its id is not known; data naming it is not
    #: reported again)
    tables_incomplete: bool = False
    #: the params of every table with programs (modifier/condition `when`, row `effect`)
    table_params: dict[str, list[tuple[str, Type]]] = field(default_factory=dict)
    #: the names of the modifiers of each table that its ``terms`` routine reports on, in
    #: order (`modifier_terms()` in a log line names them)
    table_terms: dict[str, tuple[str, ...]] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)
    #: the loaded, validated documents the model was built from, by file name in the game
    #: folder ("game.yaml", "scenarios/<id>.yaml"): their data as written, for readers
    #: that print it (the reference sheets)
    documents: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    playable: dict[str, Expr] = field(default_factory=dict)
    #: the goods of `negotiation:` in rules.yaml: (name, title, shape, item type, why)
    goods: list[tuple[str, str, str, str, str]] = field(default_factory=list)
    #: the board displays of `board:` in rules.yaml: (name, title); procedures ``board__<name>``
    displays: list[tuple[str, str]] = field(default_factory=list)
    #: the goods that are promises (`promise:`), kept in player fields ``promised_<name>``
    promises: list[str] = field(default_factory=list)
    #: the promises about one of a list (`item` and `from`): the type of what they are about,
    #: kept beside the players promised to in player fields ``promised_<name>_about``
    promise_about: dict[str, Type] = field(default_factory=dict)
    #: the function bots judge deals by (`negotiation: value:`), if any
    deal_value: str = ""
    #: where `windows:` open: (window, "before" | "after", procedure or `turn.<step>`, where
    #: `opens:` says it); woven in per scenario (compiler/windows.py)
    window_opens: list[tuple[str, str, str, Position]] = field(default_factory=list)
    #: the lasting effects of `effects:` in rules.yaml (compiler/lasting.py)
    lasting: list[LastingEffect] = field(default_factory=list)
    #: the hex grid of board.yaml, if the game has one
    board: Board | None = None

    def flow(self, section: str) -> list[Routine]:
        """The steps of a flow section: ``setup``, ``turn`` or ``end_of_turn``."""
        return {"setup": self.setup, "turn": self.turn, "end_of_turn": self.end_of_turn}[section]

    @property
    def scenario(self) -> Scenario:
        """The scenario of a resolved game (each resolved game has exactly one)."""
        return next(iter(self.scenarios.values()))

    def routines(self) -> list[Routine]:
        """Every routine, in a stable order."""
        out = list(self.functions.values())
        out += [c.effect for c in self.cards.values()]
        out += self.setup + self.turn + self.end_of_turn
        if self.main is not None:
            out.append(self.main)
        return out

    def routine(self, name: str) -> Routine | None:
        """A function, procedure or flow step by name."""
        if name in self.functions:
            return self.functions[name]
        for r in self.setup + self.turn + self.end_of_turn:
            if r.name == name:
                return r
        return None

    def facts(self) -> list[tuple[str, str | None, Field]]:
        """``(scope, entity type, field)`` of every external fact (``fact: true``): globals
        (``g``), player fields (``p``) and entity fields (``e``), in declaration order."""
        out: list[tuple[str, str | None, Field]] = [
            ("g", None, f) for f in self.globals.values() if f.fact
        ]
        out += [("p", None, f) for f in self.player_fields.values() if f.fact]
        for et in self.entities.values():
            out += [("e", et.name, f) for f in et.fields.values() if f.fact]
        return out

    def plural_types(self) -> dict[str, str]:
        return {e.plural: e.name for e in self.entities.values()}
