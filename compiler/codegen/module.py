"""One engine per game: the game's engine class, and a data module per scenario.

Every scenario is compiled in full; the game's engine class (``engine.py``) holds the
routines of the first scenario without a base, and a scenario's module holds its data and,
only if some routine compiles differently for it, a subclass of its base's class with just
those methods (a scenario that changes set-up data only adds no code).

After formatting, the ``#@<position>`` marker lines the routines carry are removed and
become the module's ``_ORIGINS`` table: (line, rules position) pairs the runtime uses to name
the rules line an error came from.
"""

from __future__ import annotations

import keyword
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Any

import jinja2

from ...runtime import prelude
from ...runtime.layout import ABI
from .. import ir
from .data import ScenarioData, build_data, ref_kind, table_ids, written_fields
from .dispatch import dispatch_methods
from .exprs import CodegenError, ExprGen, Scope
from .inline_calls import hoist_data, inline_functions
from .loop_indices import index_loops
from .nonone import never_none
from .ordinals import enum_ordinals
from .player_lists import player_lists_as_sets, small_kinds
from .purefn import table_type, tabulable, use_tables
from .pytext import I64_IMPORT, REF, bind_int_view
from .routines import ClassTables, RoutineGen, find_suspending, method_stem
from .specialise import guard_logs, inline_helpers, known_heads, lower_loops

#: the prelude's names generated code spells as they are (it calls the others ``_<name>``)
_PLAIN = frozenset(("MAX_LOOP",))


def prelude_alias(name: str) -> str:
    """The name generated code calls a helper of ``rulecraft.runtime.prelude`` by: ``_roll``
    for ``roll``, ``_REVEALS`` for the header slot ``REVEALS``."""
    return name if name in _PLAIN else "_" + name


#: tuples of the tables' programs by table number, one per part (``tprog_<part>`` bound)
TFUNS = ("tfun_mods", "tfun_allows", "tfun_apply", "tfun_terms")

#: the helpers of rulecraft.runtime.prelude by the names generated code calls them
PRELUDE_NAMES = {prelude_alias(n): n for n in prelude.__all__}
RUNTIME_NAMES = ("SUSPEND", "DeadEnd", "GameEnded", "RulesError", "TurnLimit")


def uses(code: str, names: Any) -> list[str]:
    """The ``names`` that ``code`` mentions, sorted."""
    return sorted(n for n in names if re.search(rf"\b{n}\b", code))


def prelude_imports(code: str) -> list[str]:
    """The import of every prelude helper (one statement each: ruff's isort keeps aliased
    imports apart), unused ones by ``code`` marked for ruff: the scenario modules import
    theirs from the engine's module."""
    used = set(uses(code, PRELUDE_NAMES))
    out = []
    for alias, n in sorted(PRELUDE_NAMES.items()):
        line = f"from rulecraft.runtime.prelude import {n if alias == n else f'{n} as {alias}'}"
        out.append(line if alias in used else line + "  # noqa: F401")
    return out


def rulecraft_version() -> str:
    try:
        return version("rulecraft")
    except PackageNotFoundError:  # pragma: no cover - running from a source tree
        return "0+unknown"


def camel(name: str) -> str:
    return "".join(w.capitalize() for w in name.split("_"))


#: module names of generated/<game>/ that no scenario's module may take
_TAKEN_MODULES = frozenset(("engine",))


def module_name(sid: str) -> str:
    """The module of scenario ``sid`` in generated/<game>/: its id, unless the id is a Python
    keyword (``import``) or the engine's module name; then the id and ``_``, which no
    designer's name ends with (a name is lowercase words joined by single underscores)."""
    if not sid.isidentifier():  # the schema's name pattern keeps this from happening
        raise CodegenError(f"scenario id {sid!r} is not a name")
    if keyword.iskeyword(sid) or sid in _TAKEN_MODULES:
        return sid + "_"
    return sid


def class_names(sids: list[str]) -> dict[str, str]:
    """The engine class name of each scenario (``CamelCaseScenario``), made unique: ``a_1b``
    and ``a1b`` both read ``A1b``."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for sid in sids:
        name = camel(sid) + "Scenario"
        n = 1
        while name in taken:
            n += 1
            name = f"{camel(sid)}{n}Scenario"
        taken.add(name)
        out[sid] = name
    return out


# ---------------------------------------------------------------------------- classes


@dataclass
class ClassGen:
    """A generated engine class: the game's, or a scenario's subclass."""

    name: str
    module: str  # "engine" or a scenario's module (see module_name)
    parent: ClassGen | None
    tables: ClassTables
    methods: dict[str, str] = field(default_factory=dict)  # own methods by name
    attrs: dict[str, str] = field(default_factory=dict)  # own data attributes -> type
    #: the root class's STEP_NAMES and CARD_NAMES (see dispatch.py)
    names: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: the functions tabulated (purefn.py): method name -> (domain's data key, table type);
    #: the root class declares them all, each class defining one builds its table
    tabulated: dict[str, tuple[str, str]] = field(default_factory=dict)

    def method(self, name: str) -> str | None:
        c: ClassGen | None = self
        while c is not None:
            if name in c.methods:
                return c.methods[name]
            c = c.parent
        return None

    def all_attrs(self) -> set[str]:
        out: set[str] = set()
        c: ClassGen | None = self
        while c is not None:
            out |= set(c.attrs)
            c = c.parent
        return out


@dataclass
class Compiled:
    """One scenario compiled: its data, its methods and the tables they use."""

    sd: ScenarioData
    methods: dict[str, str]
    tables: ClassTables


def compile_scenario(sd: ScenarioData, tables: ClassTables) -> Compiled:
    g = sd.game
    methods: dict[str, str] = {}
    # The flow of play is data: the steps in order, None for "the next turn starts"; the
    # game class's r_main / q_main run it (a scenario that changes the flow adds no code).
    sd.primary["flow"] = sd.data["flow"] = (
        *(r.name for r in g.setup),
        None,
        *(r.name for r in g.turn + g.end_of_turn),
    )
    sd.primary["flow_loop"] = sd.data["flow_loop"] = len(g.setup)
    for r in g.routines():
        if r.kind == "main":
            continue
        if r.kind == "function":
            methods["f_" + r.name] = specialise(RoutineGen(sd, tables, r, "F").plain(), sd)
            continue
        if not r.suspends:
            # one form for the machine and for playouts (the log is off in a playout)
            methods["p_" + r.name] = specialise(RoutineGen(sd, tables, r, "P").plain(), sd)
            continue
        methods["r_" + r.name] = RoutineGen(sd, tables, r, "R").machine()
        methods["q_" + r.name] = specialise(RoutineGen(sd, tables, r, "Q").plain(), sd)
    for card in sorted(g.cards.values(), key=lambda c: c.index):
        if card.playable is not None:
            methods[f"f_playable__{card.id}"] = playable_method(sd, tables, card)
    for tname in sorted(sd.dynamic_labels):
        methods[f"label_{tname}"] = label_method(sd, tname)
    return Compiled(sd, methods, tables)


def specialise(code: str, sd: ScenarioData) -> str:
    """A plain method through the specialising passes (see ``specialise.py``)."""
    return guard_logs(known_heads(inline_helpers(lower_loops(code))))


def playable_method(sd: ScenarioData, tables: ClassTables, card: ir.Card) -> str:
    r = ir.Routine(
        f"playable__{card.id}",
        "function",
        [("me", ir.PLAYER)],
        ir.BOOL,
        [],
        card.origin,
    )
    gen = RoutineGen(sd, tables, r, "F")
    me = gen.scope.declare("me")
    assert card.playable is not None
    return "\n".join(
        [
            f"def f_playable__{card.id}(self, S: list[Any], {me}: {REF}) -> bool:",
            f"    {repr('When ' + card.name + ' may be played. [' + str(card.origin.pos) + ']')}",
            f"    #@{card.playable.pos}",
            f"    return bool({gen.expr(card.playable)})",
        ]
    )


def label_method(sd: ScenarioData, tname: str) -> str:
    """The label of a record whose label reads fields that change."""
    et = sd.game.entities[tname]
    assert et.label is not None
    eg = ExprGen(sd, Scope())
    eg.record = (tname, "i")
    text = eg.expr(et.label)
    return "\n".join(
        [
            f"def label_{tname}(self, S: list[Any], i: Any) -> str:",
            f'    """The label of a {tname}."""',
            '    if i is None:\n        return "none"',
            f"    return {text}",
        ]
    )


# ---------------------------------------------------------------------------- the game


def scenario_order(games: dict[str, ir.Game]) -> list[str]:
    """Scenarios with their bases first; the first one without a base leads."""
    order: list[str] = []

    def visit(sid: str) -> None:
        if sid in order:
            return
        base = games[sid].scenario.base
        if base is not None and base in games:
            visit(base)
        order.append(sid)

    roots = sorted(s for s, g in games.items() if g.scenario.base is None)
    for sid in roots + sorted(games):
        visit(sid)
    return order


def _i64_import(code: str) -> str:
    """The import of ``i64`` for type checkers, if ``code`` (a module's classes) uses it."""
    return I64_IMPORT if re.search(rf"\b{REF}\b", code) else ""


def attr_type(key: str, values: list[Any]) -> str:
    """The annotation of a data attribute that holds ``values`` (its value in each scenario
    the class serves): as precise as all of them allow, so that the native build (mypyc)
    keeps ints unboxed where the data are ints (``tuple[int, ...]``, ``dict[Any, int]``)."""
    if key.startswith("k_"):
        return "Any"
    t = _join([value_type(v) for v in values])
    if key.startswith("o_") and t == "int":
        return REF  # a state offset: an index
    if t is None or t == "Any":
        top = {type(v) for v in values}
        return "tuple[Any, ...]" if top == {tuple} else "dict[Any, Any]" if top == {dict} else "Any"
    return t


def value_type(v: Any) -> str | None:
    """The precise type of a data value, or None if it says nothing (an empty tuple or
    dict, whose element type any other value may give)."""
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, str):
        return "str"
    if isinstance(v, tuple):
        if not v:
            return None
        elem = _join([value_type(x) for x in v])
        return f"tuple[{elem or 'Any'}, ...]"
    if isinstance(v, dict):
        if not v:
            return None
        elem = _join([value_type(x) for x in v.values()])
        return f"dict[Any, {elem or 'Any'}]"
    return "Any"


def _join(types: list[str | None]) -> str | None:
    """The one type of all ``types`` (None: no information), ``Any`` if they differ."""
    known = {t for t in types if t is not None}
    if not known:
        return None
    return known.pop() if len(known) == 1 else "Any"


SELF_ATTR = re.compile(r"self\.([a-z][a-z0-9_]*)")


def referenced_data(texts: list[str], data: dict[str, Any]) -> set[str]:
    out = set()
    for text in texts:
        for m in SELF_ATTR.finditer(text):
            name = m.group(1)
            if name in data or name.startswith("k_"):
                out.add(name)
    return out


def looked_up(g: ir.Game) -> list[str]:
    """The tables whose data the engine of ``g`` holds: those `lookup` names in quotes, or
    every table when the rules look up a table value."""
    from ..effects import Call, Str, walk

    named: set[str] = set()
    for r in g.routines():
        for n in walk(r.body):
            if isinstance(n, Call) and n.func in ("lookup", "resolve") and n.args:
                a = n.args[0]
                if isinstance(a, Str) and a.is_plain:
                    named.add(a.plain)
                else:
                    return list(table_ids(g))
    return sorted(named)


def table_programs(g: ir.Game) -> dict[str, tuple[Any, ...]]:
    """``tprog_mods`` / ``tprog_allows`` / ``tprog_apply``: the method of each table's
    program by table number (None where a table has none), for `modifiers`, `allows` and
    `apply` of a table value."""
    from ..tables.programs import routine_name

    out: dict[str, tuple[Any, ...]] = {}
    for part, prefix in (("mods", "f_"), ("allows", "f_"), ("apply", "p_"), ("terms", "f_")):
        names = []
        for tid in table_ids(g):
            r = g.functions.get(routine_name(tid, part))
            names.append(None if r is None else prefix + method_stem(r))
        if part != "terms" or any(names):
            out[f"tprog_{part}"] = tuple(names)
    if g.table_terms:
        out["tterm_names"] = tuple(g.table_terms.get(tid, ()) for tid in table_ids(g))
    return out


def end_reasons(g: ir.Game) -> tuple[str, ...]:
    """The reasons the rules give for ending the game (`end_game(..., "reason")` with a reason
    written out), in the order they appear: reports count games for each, zeros included."""
    from ..effects import Call, Str, walk

    out: list[str] = []
    for r in g.routines():
        for n in walk(r.body):
            if isinstance(n, Call) and n.func == "end_game" and len(n.args) > 1:
                a = n.args[1]
                if isinstance(a, Str) and a.is_plain and a.plain not in out:
                    out.append(a.plain)
    return tuple(out)


def stable_functions(games: list[ir.Game]) -> set[str]:
    """Functions with the same definition in every scenario, calling only such functions."""
    from ..effects import Call, walk

    origins: dict[str, set[str]] = {}
    calls: dict[str, set[str]] = {}
    for g in games:
        for name, r in g.functions.items():
            if r.kind != "function":
                continue
            origins.setdefault(name, set()).add(str(r.origin.pos))
            calls.setdefault(name, set()).update(
                n.func
                for n in walk(r.body)
                if isinstance(n, Call) and isinstance(n.ref, ir.Routine)
            )
    stable = {n for n, o in origins.items() if len(o) == 1 and all(n in g.functions for g in games)}
    changed = True
    while changed:
        changed = False
        for n in sorted(stable):
            if not calls[n] <= stable:
                stable.discard(n)
                changed = True
    return stable


def generate_game(games: dict[str, ir.Game], tables_data: dict[str, Any]) -> dict[str, str]:
    """The modules of one game: ``engine.py``, one module per scenario and ``__init__.py``.

    ``games`` are the checked, resolved scenarios by id; ``tables_data`` the data of the
    range tables the rules look up (by table id). Texts are not formatted yet.
    """
    order = scenario_order(games)
    written = written_fields([games[s] for s in order])
    waiting: set[str] = set()
    while True:
        found = set(waiting)
        for g in games.values():
            found |= find_suspending(g, waiting)
        if found == waiting:
            break
        waiting = found
    first = games[order[0]]
    root_sid = order[0]
    stable = stable_functions(list(games.values()))
    never_none_refs = never_none(games.values())
    classes: dict[str, ClassGen] = {}
    compiled: dict[str, Compiled] = {}
    datas: dict[str, dict[str, Any]] = {}
    class_name = class_names(order)
    for sid in order:
        g = games[sid]
        sd = build_data(g, written)
        sd.stable = stable
        sd.never_none = never_none_refs
        datas[sid] = sd.data
        for tid in looked_up(g):
            sd.data[f"t_{tid}"] = sd.primary[f"t_{tid}"] = tables_data[tid]
        if g.table_params or "id_table" in sd.data:
            tabs = tuple(sd.data.get(f"t_{tid}") for tid in table_ids(g))
            sd.data["tabs"] = sd.primary["tabs"] = tabs
            for k, v in table_programs(g).items():
                sd.data[k] = sd.primary[k] = v
        sd.data["deal_goods"] = sd.primary["deal_goods"] = tuple(g.goods)
        sd.data["deal_value"] = sd.primary["deal_value"] = g.deal_value
        decks = tuple(t for t, et in g.entities.items() if et.deck)
        sd.data["deck_types"] = sd.primary["deck_types"] = decks
        sd.data["end_reasons"] = sd.primary["end_reasons"] = end_reasons(g)
        fogs = {
            t: (et.fog.at, et.fog.label, et.fog.fields, et.fog.place)
            for t, et in sorted(g.entities.items())
            if et.fog
        }
        if fogs:  # fog of war: a fogged type's position field and its label in the fog
            sd.data["fog"] = sd.primary["fog"] = fogs
        if g.scenario.bot_max_turns is not None:  # tooling data (`simulate:`), not rules
            sd.data["bot_max_turns"] = sd.primary["bot_max_turns"] = g.scenario.bot_max_turns
        base = g.scenario.base if g.scenario.base in games else None
        parent = classes[base] if base is not None else classes.get(root_sid)
        tables = parent.tables.copy() if parent is not None else ClassTables.new()
        comp = compile_scenario(sd, tables)
        compiled[sid] = comp
        if parent is None:
            cls = ClassGen(camel(g.id) + "Rules", "engine", None, tables, dict(comp.methods))
        else:
            own = {n: t for n, t in comp.methods.items() if parent.method(n) != t}
            if not own:
                classes[sid] = parent
                continue
            cls = ClassGen(class_name[sid], module_name(sid), parent, tables, own)
        inherited = parent.all_attrs() if parent is not None else set()
        for name in sorted(referenced_data(list(cls.methods.values()), sd.data) - inherited):
            cls.attrs[name] = ""
        classes[sid] = cls
    # the flow's steps and the cards called directly (dispatch.py), by game-wide numbers
    # (each turn's steps first, in the order of the flow: the chains test them first)
    flows = [compiled[s].sd.data["flow"] for s in order]
    loops = [tuple(f[f.index(None) + 1 :]) for f in flows]
    steps = tuple(dict.fromkeys(n for f in loops + [f[: f.index(None)] for f in flows] for n in f))
    cards = tuple(sorted({n for c in compiled.values() for n in c.sd.data["id_card"]}))
    # the turn most scenarios play (the first scenario's among equals): q_turns plays it
    # as straight-line code where a scenario's turn is it (flow_turn)
    turn = Counter(loops).most_common(1)[0][0]
    classes[root_sid].names = {"STEP_NAMES": steps, "CARD_NAMES": cards, "FLOW_TURN": turn}
    for cls in {id(c): c for c in (classes[s] for s in order)}.values():
        for name, text in dispatch_methods(
            lambda n, cls=cls: cls.method(n) is not None, steps, cards, turn
        ).items():
            if cls.parent is None or cls.parent.method(name) != text:
                cls.methods[name] = text
    # every attribute typed by its values in all the game's scenarios (a subclass inherits
    # its parent's attributes with their types)
    for cls in {id(c): c for c in classes.values()}.values():
        for name in cls.attrs:
            cls.attrs[name] = attr_type(name, [d[name] for d in datas.values() if name in d])
    tabulate_functions({id(c): c for c in classes.values()}.values(), classes[root_sid], games)
    inline_functions(classes, compiled, root_sid)
    enum_ordinals(classes, compiled)
    small = small_kinds([c.sd.data for c in compiled.values()])
    tables = {"tab_" + name[2:] for name in classes[root_sid].tabulated}
    for cls in {id(c): c for c in classes.values()}.values():
        for name, text in list(cls.methods.items()):
            if name.startswith(("f_", "p_", "q_")):
                cls.methods[name] = index_loops(player_lists_as_sets(text, small))
        if "q_turns" in cls.methods:  # last: the passes above read the data as self.X
            cls.methods["q_turns"] = hoist_data(cls.methods["q_turns"], cls.all_attrs() | tables)
    out: dict[str, str] = {}
    root = classes[root_sid]
    env = environment()
    sources = sorted({s for g in games.values() for s in g.sources})
    classes_code = class_text(root)
    out["engine.py"] = env.get_template("engine.py.j2").render(
        sources=sources,
        docstring=f"{first.title}: the engine of every scenario (rules/{first.id}/).",
        prelude_imports=prelude_imports(classes_code),
        abi=ABI,
        version=rulecraft_version(),
        classes=classes_code,
        i64=_i64_import(classes_code),
    )
    for sid in order:
        b = games[sid].scenario.base
        of_base = (b, compiled[b], games[b]) if b in compiled else None
        out[f"{module_name(sid)}.py"] = scenario_module(
            env, games[sid], compiled[sid], classes[sid], of_base
        )
    out["__init__.py"] = package_init(first, order, root_sid)
    return out


def tabulate_functions(
    all_classes: Iterable[ClassGen], root: ClassGen, games: dict[str, ir.Game]
) -> None:
    """Functions of one record that read no state as tables (purefn.py): every call of
    one in every class's methods reads its table."""
    cls_list = list(all_classes)
    definitions: dict[str, list[str]] = {}
    data_attrs: set[str] = set()
    for cls in cls_list:
        data_attrs |= set(cls.attrs)
        for name, text in cls.methods.items():
            if name.startswith("f_"):
                definitions.setdefault(name, []).append(text)
    found = tabulable(definitions, data_attrs, games.values())
    if not found:
        return
    for name, key in found.items():
        root.tabulated[name] = (key, table_type(definitions[name][0]))
    for cls in cls_list:
        for name in list(cls.methods):
            if name not in found:
                cls.methods[name] = use_tables(cls.methods[name], found)


def class_text(cls: ClassGen, sid: str = "") -> str:
    """The source of a generated engine class (unformatted, methods indented); ``sid`` is the
    scenario of a scenario's class."""
    lines: list[str] = []
    parent = f"({cls.parent.name})" if cls.parent is not None else ""
    lines.append(f"class {cls.name}{parent}:")
    if cls.parent is None:
        lines.append(
            '    """The rules of the game as methods over a state list S (rulecraft.runtime)."""'
        )
    else:
        lines.append(f'    """What scenario {sid!r} changes in the rules."""')
    lines.append("")
    t = cls.tables
    if cls.parent is None:
        lines.append(f"    TEMPLATES: ClassVar[Any] = {_py(tuple(t.templates))}")
        lines.append(f"    SITES: ClassVar[Any] = {_py(tuple(t.sites))}")
        lines.append(f"    ROUTINES: ClassVar[Any] = {_py(tuple(t.routines))}")
        for name, names in cls.names.items():
            lines.append(f"    {name}: ClassVar[tuple[str, ...]] = {_py(names)}")
    else:
        p = cls.parent.tables
        lines.append(
            f"    TEMPLATES: ClassVar[Any] = {cls.parent.name}.TEMPLATES + "
            f"{_py(tuple(t.templates[len(p.templates) :]))}"
        )
        lines.append(
            f"    SITES: ClassVar[Any] = {cls.parent.name}.SITES + "
            f"{_py(tuple(t.sites[len(p.sites) :]))}"
        )
        lines.append(
            f"    ROUTINES: ClassVar[Any] = {cls.parent.name}.ROUTINES + "
            f"{_py(tuple(t.routines[len(p.routines) :]))}"
        )
    # the whole map where it differs from the parent's (a scenario's routines may have their
    # own resume points)
    p_t = cls.parent.tables if cls.parent is not None else None
    if p_t is None or p_t.secrets != t.secrets:
        lines.append(f"    SECRETS: ClassVar[Any] = {_py(dict(sorted(t.secrets.items())))}")
    if p_t is None or p_t.secret_prompts != t.secret_prompts:
        lines.append(f"    SECRET_PROMPTS: ClassVar[Any] = {_py(tuple(sorted(t.secret_prompts)))}")
    if p_t is None or p_t.site_filters != t.site_filters:
        filters = dict(sorted(t.site_filters.items()))
        if p_t is not None and p_t.site_filters.keys() <= filters.keys():
            # a scenario's own sites: what it adds to the parent's (or says otherwise)
            more = {k: v for k, v in filters.items() if p_t.site_filters.get(k) != v}
            lines.append(
                f"    SITE_FILTERS: ClassVar[Any] = {{**{cls.parent.name}.SITE_FILTERS, "
                f"{_py(more)[1:-1]}}}"
            )
        else:
            lines.append(f"    SITE_FILTERS: ClassVar[Any] = {_py(filters)}")
    if cls.parent is None:
        lines.append("    d: Any")
        # tuples of bound methods (or None): typed, so the native build indexes them natively
        for name in ("routines", "card_r", "card_p", "card_q", "card_playable", *TFUNS):
            lines.append(f"    {name}: tuple[Any, ...]")
        for name in ("flow_r", "flow_q"):
            lines.append(f"    {name}: tuple[Any, ...]")
        lines.append("    flow_origin: Any")
        for name in ("flow_ix", "card_ix"):
            lines.append(f"    {name}: tuple[int, ...]")
        lines.append("    flow_loop: int")
        lines.append("    flow_turn: bool")
        lines.append("    card_conditioned: int")
    for name, typ in sorted(cls.attrs.items()):
        lines.append(f"    {name}: {typ}")
    for name, (_key, typ) in sorted(cls.tabulated.items()):
        lines.append(f"    tab_{name[2:]}: {typ}")
    lines.append("")
    lines.append("    def __init__(self, d: dict[str, Any]) -> None:")
    if cls.parent is not None:
        lines.append("        super().__init__(d)")
    else:
        lines.append("        self.d = d")
    for name in sorted(cls.attrs):
        getter = f"d.get({name!r})" if name.startswith("k_") else f"d[{name!r}]"
        lines.append(f"        self.{name} = {getter}")
    fixed: list[str] = []
    if cls.parent is None:
        fixed = environment().get_template("engine_class.py.j2").render().rstrip("\n").split("\n")
    # the tables at the end of __init__, before the fixed part's methods
    at = next((i for i, ln in enumerate(fixed) if ln.startswith("    def ")), len(fixed))
    lines.extend([*fixed[:at], *table_lines(cls), *fixed[at:]])
    for name in sorted(cls.methods):
        lines.append("")
        text = bind_int_view(cls.methods[name])
        lines.extend("    " + ln if ln else "" for ln in text.split("\n"))
    return "\n".join(lines)


def table_lines(cls: ClassGen) -> list[str]:
    """The end of a class's ``__init__``: the tables of the functions it defines (purefn.py),
    None in the root class for those it does not."""
    root = cls
    while root.parent is not None:
        root = root.parent
    out = []
    for name, (key, _typ) in sorted(root.tabulated.items()):
        if name in cls.methods:
            out.append(f"        self.tab_{name[2:]} = _tabulate(self.{name}, d.get({key!r}))")
        elif cls is root:
            out.append(f"        self.tab_{name[2:]} = None")
    return out


def scenario_module(
    env: jinja2.Environment,
    g: ir.Game,
    comp: Compiled,
    cls: ClassGen,
    base: tuple[str, Compiled, ir.Game] | None,
) -> str:
    """A scenario's module: its data (what differs from its base's, the rest taken from the
    base's module), and its engine class if it has one of its own."""
    sd = comp.sd
    sid = sd.sid
    sc = g.scenario
    own_class = cls.module == module_name(sid)
    class_code = class_text(cls, sid) if own_class else ""
    consts = module_constants(g, comp)
    base_consts = module_constants(base[2], base[1]) if base is not None else {}
    # the primary data refers to the module constants by name
    named = {key: name for name, (key, _v) in consts.items() if key}
    tables = {name: v for name, (key, v) in consts.items() if key.startswith("t_")}
    primary = dict(sd.primary)
    lines = []
    for name, (_key, value) in consts.items():
        # annotated: mypy (and mypyc) need no inference across the scenario modules
        typ = (
            "int"
            if isinstance(value, int)
            else "dict[str, Any]"
            if isinstance(value, dict)
            else "tuple[Any, ...]"
        )
        if name in base_consts and base_consts[name][1] == value:
            lines.append(f"{name}: {typ} = _base.{name}")
        elif name == "LAYOUT":
            rows = "".join(f"    {layout_row(row)},\n" for row in value)
            lines.append(f"{name}: {typ} = (\n{rows})")
        else:
            lines.append(f"{name}: {typ} = {_py(value)}")
    if base is not None and set(base[1].sd.primary) <= set(primary):
        changed = {k: v for k, v in primary.items() if base[1].sd.primary.get(k, _MISSING) != v}
        body = data_literal(changed, named, tables)
        data_text = "{**_base.PRIMARY, " + body[1:] if changed else "dict(_base.PRIMARY)"
    else:
        data_text = data_literal(primary, named, tables)
    # imports: the base module, the parent class, the helpers the class code uses
    parent = cls.parent if own_class else cls
    assert parent is not None
    parent_module = ".engine" if parent.module == "engine" else f".{parent.module}"
    used = uses(class_code, PRELUDE_NAMES)
    runtime = uses(class_code, RUNTIME_NAMES)
    imports: dict[str, list[str]] = {".engine": used}
    imports.setdefault(parent_module, []).append(parent.name)
    import_lines = [
        f"from {module} import {', '.join(sorted(names))}"
        for module, names in sorted(imports.items())
        if names
    ]
    if base is not None:
        import_lines.insert(0, f"from . import {module_name(base[0])} as _base")
    return env.get_template("scenario.py.j2").render(
        sources=sorted(set(g.sources)),
        docstring=f"{sc.title}: the data of scenario {sid!r} of {g.title}.",
        class_code=class_code,
        i64=_i64_import(class_code),
        runtime_imports=runtime,
        import_lines=import_lines,
        constants=lines,
        data=data_text,
        class_name=cls.name,
        game_id=g.id,
        game_title=g.title,
        sid=sid,
        scenario_title=sc.title,
        max_turns=sc.max_turns,
    )


_MISSING = object()


def layout_row(row: tuple[Any, ...]) -> str:
    """A LAYOUT row; initial values that are all the same are written ``(value,) * n``."""
    *head, values = row
    if len(values) > 1 and all(v == values[0] for v in values):
        init = f"({_py(values[0])},) * {len(values)}"
    else:
        init = _py(values)
    return "(" + ", ".join([*map(_py, head), init]) + ")"


def module_constants(g: ir.Game, comp: Compiled) -> dict[str, tuple[str, Any]]:
    """The named data of a scenario module: name -> (key in the primary data or "", value)."""
    sd = comp.sd
    data = sd.primary
    out: dict[str, tuple[str, Any]] = {
        "CARD_ID": ("id_card", data["id_card"]),
        "CARD_NAME": ("name_card", data["name_card"]),
    }
    for aname in g.card_attributes:
        out[f"CARD_{aname.upper()}"] = (f"card_{aname}", data[f"card_{aname}"])
    for e in sorted(g.enums):
        out[f"E_{e.upper()}"] = (f"e_{e}", data[f"e_{e}"])
    for k, v in sorted(data.items()):
        if k.startswith("t_"):
            out[f"TABLE_{k[2:].upper()}"] = (k, v)
    out["SIZE"] = ("", sd.size)
    out["LAYOUT"] = ("", sd.layout_rows())
    out["FIELDS"] = (
        "",
        {
            "g": tuple(g.globals),
            "p": tuple(g.player_fields),
            "e": {t: (*et.attributes, *et.fields) for t, et in g.entities.items()},
        },
    )
    out["REFS"] = ("", static_refs(sd))
    return out


def static_refs(sd: ScenarioData) -> dict[str, str]:
    """What the fixed fields of references refer to, by path (the layout says it for the
    others): ``{"p.home": "country", "e.country.owner": "player"}``."""
    out = {}
    for key, f in sd.static.items():
        kind = ref_kind(f.type)
        if kind is not None:
            scope, _, rest = key.partition("_")
            out[f"e.{rest.replace('__', '.', 1)}" if scope == "e" else f"{scope}.{rest}"] = kind
    return dict(sorted(out.items()))


def data_literal(
    data: dict[str, Any], named: dict[str, str], constants: dict[str, Any] | None = None
) -> str:
    """The primary data as a dict literal: a key whose value is a module constant by the
    constant's name (``named``), and a tuple holding constants (``tabs``, the tables) by their
    names (``constants``: name -> value), not written out twice."""
    parts = []
    for k in sorted(data):
        v = named.get(k) or _py_named(data[k], constants or {})
        parts.append(f"    {k!r}: {v},")
    return "{\n" + "\n".join(parts) + "\n}"


def _py_named(v: Any, constants: dict[str, Any]) -> str:
    if isinstance(v, tuple) and len(v) > 1 and any(isinstance(x, tuple) for x in v):
        names = [next((n for n, c in constants.items() if c == x), None) for x in v]
        if any(names):
            return "(" + ", ".join(n or _py(x) for n, x in zip(names, v, strict=True)) + ")"
    return _py(v)


def package_init(first: ir.Game, order: list[str], default: str) -> str:
    renamed = {sid: module_name(sid) for sid in order if module_name(sid) != sid}
    if renamed:
        specs = [
            f"_MODULES = {_py(renamed)}  # scenarios whose id is not their module's name",
            "SPECS = {",
            "    sid: import_module(f'{__name__}.{_MODULES.get(sid, sid)}').SPEC",
            "    for sid in SCENARIOS",
            "}",
        ]
    else:
        specs = ["SPECS = {sid: import_module(f'{__name__}.{sid}').SPEC for sid in SCENARIOS}"]
    lines = [
        f"# Code generated by rulecraft from rules/{first.id}/. DO NOT EDIT.",
        repr(
            f"{first.title}: the engine (engine.py) and the data of each scenario "
            "(one module per scenario)."
        ),
        "",
        "from importlib import import_module",
        "",
        "from rulecraft.runtime import check_native",
        "",
        "check_native(__name__, __path__)  # a native build (compile --native) must be current",
        f"SCENARIOS = {_py(tuple(order))}",
        *specs,
        f"SPEC = SPECS[{default!r}]",
        "",
        '__all__ = ["SCENARIOS", "SPEC", "SPECS"]',
        "",
    ]
    return "\n".join(lines)


def _py(v: Any) -> str:
    """A Python literal for plain data (ints, strs, bools, None, tuples, lists, dicts); a long
    tuple of numbers is written compactly (see :func:`_numbers`)."""
    if isinstance(v, dict):
        return "{" + ", ".join(f"{_py(k)}: {_py(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_py(x) for x in v) + "]"
    if isinstance(v, tuple):
        if len(v) == 1:
            return f"({_py(v[0])},)"
        text = "(" + ", ".join(_py(x) for x in v) + ")"
        if len(text) > COMPACT_WIDTH and all(x is None or isinstance(x, int) for x in v):
            return _numbers(v)
        return text
    if v is None or isinstance(v, (bool, int, str)):
        return repr(v)
    raise CodegenError(f"cannot write {type(v).__name__} as a literal")


#: the longest tuple of numbers written out as it is: ruff format puts a tuple that does not
#: fit on its line one element a line, so a longer one is written in pieces that fit
COMPACT_WIDTH = 56
#: the shortest run of one value, or of ints counting up or down by one step, written as such
_RUN = 4


def _numbers(v: tuple[Any, ...]) -> str:
    """A long tuple of ints, bools and Nones as an expression whose pieces each fit on a line:
    ``tuple(range(a, b))`` for a range, ``(x,) * n`` for one value repeated, and otherwise
    ``(*range(a, b), *(x,) * n, *(x, y, z), ...)`` (the same tuple, built once at import)."""
    parts: list[str] = []
    loose: list[str] = []

    def flush() -> None:
        # the values that are not in a run, in pieces of at most COMPACT_WIDTH characters
        piece: list[str] = []
        for text in loose:
            if piece and len(", ".join([*piece, text])) + 4 > COMPACT_WIDTH:
                parts.append("*" + _tuple_text(piece))
                piece = []
            piece.append(text)
        if piece:
            parts.append("*" + _tuple_text(piece))
        loose.clear()

    i = 0
    while i < len(v):
        j = i + 1
        while j < len(v) and type(v[j]) is type(v[i]) and v[j] == v[i]:
            j += 1
        if j - i >= _RUN:
            flush()
            parts.append(f"*({_py(v[i])},) * {j - i}")
            i = j
            continue
        step = _step(v, i)
        if step:
            j = i + 1
            while j < len(v) and type(v[j]) is int and v[j] - v[j - 1] == step:
                j += 1
            if j - i >= _RUN:
                flush()
                stop = v[j - 1] + step
                parts.append(f"*range({v[i]}, {stop}{'' if step == 1 else f', {step}'})")
                i = j
                continue
        loose.append(_py(v[i]))
        i += 1
    flush()
    if len(parts) > 1:
        return "(" + ", ".join(parts) + ")"
    if parts[0].startswith("*range("):
        return f"tuple({parts[0][1:]})"
    return parts[0][1:]


def _tuple_text(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else "(" + ", ".join(items) + ")"


def _step(v: tuple[Any, ...], i: int) -> int:
    """The step (1 or -1) from ``v[i]`` to ``v[i + 1]`` if both are ints (not bools), else 0."""
    if i + 1 < len(v) and type(v[i]) is int and type(v[i + 1]) is int:
        d = v[i + 1] - v[i]
        return d if d in (1, -1) else 0
    return 0


def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("rulecraft.compiler.codegen", "templates"),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )
    env.filters["py"] = _py
    env.filters["tuple"] = tuple
    return env


# ---------------------------------------------------------------------------- origins

MARKER = re.compile(r"^\s*# ?@(.+)$")


def extract_origins(text: str) -> str:
    """Remove the ``#@position`` marker lines of formatted code and append ``_ORIGINS``."""
    out: list[str] = []
    table: list[tuple[int, str]] = []
    pending: str | None = None
    for line in text.split("\n"):
        m = MARKER.match(line)
        if m is not None:
            pending = m.group(1).strip()
            continue
        out.append(line)
        if pending is not None:
            table.append((len(out), pending))
            pending = None
    if not table:
        return "\n".join(out)
    while out and out[-1] == "":
        out.pop()
    rows = "\\n".join(f"{line} {pos}" for line, pos in table)
    out.append("")
    out.append("")
    out.append(
        "#: line and rules position of each rules statement, for errors (see rulecraft.runtime)"
    )
    out.append(f'_ORIGINS = "{rows}"')
    out.append("")
    return "\n".join(out)
