"""The type rules of the builtins (the checker calls them with itself and the call)."""

from __future__ import annotations

from typing import Any

from .. import ir
from ..diagnostics import did_you_mean
from ..effects import Attr, Bool, Call, Expr, In, Str
from ..typerules import article, compatible
from .row import Checker, TypeRule


def takes(*params: ir.Type, gives: ir.Type) -> TypeRule:
    """The type rule of a builtin with fixed parameter types."""

    def rule(ck: Checker, c: Call) -> ir.Type:
        ck.args(c, *params)
        return gives

    return rule


def check_minmax(ck: Checker, c: Call) -> ir.Type:
    if not c.args:
        ck.arity(c, 1, 99)
        return ir.INT
    if len(c.args) == 1:
        ck.args(c, ir.list_of(ir.INT))
    else:
        for a in c.args:
            ck.expect(a, ck.expr(a), ir.INT, f"an argument of {c.func}()")
    return ir.INT


def check_first(ck: Checker, c: Call) -> ir.Type:
    (t,) = ck.args(c, ir.list_of(ir.ANY))
    return t.elem if t.kind == "list" and t.elem is not None else ir.ANY


def check_nth(ck: Checker, c: Call) -> ir.Type:
    t, _i = ck.args(c, ir.list_of(ir.ANY), ir.INT)
    return t.elem if t.kind == "list" and t.elem is not None else ir.ANY


def check_shuffled(ck: Checker, c: Call) -> ir.Type:
    (t,) = ck.args(c, ir.list_of(ir.ANY))
    return t


#: table kinds `lookup` reads, and the keys it takes after the table
LOOKUP_KEYS = {
    "range": (ir.INT,),
    "column": (ir.INT, ir.STR),
    "matrix": (ir.STR, ir.STR),
    "list": (ir.STR, ir.STR),
}


def table_arg(ck: Checker, c: Call) -> Any:
    """The table named by the first argument: a table object for an id in quotes, ``""``
    for a table-typed value (known only at run time), None after an error."""
    if not c.args:
        ck.arity(c, 1, 99)
        return None
    a = c.args[0]
    if isinstance(a, Str) and a.is_plain:
        a.ty = ir.STR
        tid = a.plain
        table = ck.game.tables.get(tid)
        if table is None:
            ck.error(
                "unknown-name",
                f"unknown table {tid!r}",
                a,
                did_you_mean(tid, ck.game.tables) or "tables are in rules/<game>/tables/*.yaml",
            )
            return None
        return table
    t = ck.expr(a)
    if t.kind != "table" and t != ir.ANY:
        ck.error(
            "type",
            f"the table of {c.func}() is its id in quotes or a table value, not {article(t)}",
            a,
            f'for example: {c.func}("greece", ...)',
        )
        return None
    return ""


def table_params(ck: Checker, c: Call, table: Any, args: list[Expr]) -> None:
    """Check the arguments a table's programs take (its ``params``)."""
    if table is None:
        for a in args:
            ck.expr(a)
        return
    if table == "":
        signatures = ck.game.table_params
        params = next(iter(signatures.values()), [])
        for tid, other in signatures.items():
            if other != params:
                first = next(iter(signatures))
                ck.error(
                    "type",
                    f"{c.func}() of a table value needs every table with programs to take the "
                    f"same params; {first!r} and {tid!r} differ",
                    c,
                )
                break
    else:
        params = getattr(table, "params", None) or []
    if len(args) != len(params):
        names = ", ".join(n for n, _ in params) or "none"
        ck.error(
            "arity",
            f"{c.func}() passes the table's params ({names}): {len(params)} after the "
            f"table, not {len(args)}",
            c,
        )
    for a, (pname, pt) in zip(args, params, strict=False):
        ck.expect(a, ck.expr(a), pt, f"param {pname!r} of the table")
    for a in args[len(params) :]:
        ck.expr(a)


def check_lookup(ck: Checker, c: Call) -> ir.Type:
    table = table_arg(ck, c)
    keys = c.args[1:]
    if table is None:
        for k in keys:
            ck.expr(k)
        return ir.ANY
    if table == "":
        if len(keys) != 1:
            ck.error("arity", "lookup() of a table value takes one number", c)
        for k in keys:
            ck.expect(k, ck.expr(k), ir.INT, "the key of lookup()")
        return ir.result()
    want = LOOKUP_KEYS.get(table.kind)
    if want is None:
        ck.error(
            "type",
            f"table {table.id!r} is a {table.kind} table; lookup() reads "
            + ", ".join(LOOKUP_KEYS)
            + " tables",
            c.args[0],
        )
        return ir.result()
    if len(keys) != len(want):
        ck.error(
            "arity",
            f"lookup() of {table.kind} table {table.id!r} takes {len(want)} key"
            f"{'s' if len(want) > 1 else ''} after the table, not {len(keys)}",
            c.args[0],
        )
        for k in keys:
            ck.expr(k)
        return ir.ANY
    for k, t in zip(keys, want, strict=True):
        ck.expect(k, ck.expr(k), t, "a key of lookup()")
    axes = []
    if table.kind in ("matrix", "list"):
        axes.append((keys[0], "row", [r.id for r in table.rows if r.id]))
    if table.kind != "range":
        axes.append((keys[-1], "column", [col.id for col in table.columns]))
    for k, axis, ids in axes:
        if isinstance(k, Str) and k.is_plain and k.plain not in ids:
            ck.error(
                "unknown-name",
                f"table {table.id!r} has no {axis} {k.plain!r}",
                k,
                did_you_mean(k.plain, ids) or f"{axis}s: " + ", ".join(ids),
            )
    return ir.result(table.id)


#: named arguments of `resolve` besides the table's shifts
RESOLVE_KWARGS = ("shifts", "modifier")


def check_resolve(ck: Checker, c: Call) -> ir.Type:
    """``resolve("crt", attack, defence, terrain=1, ...)``: a column table named in quotes,
    its strengths (two for odds columns, one value otherwise) and its shifts by name."""
    table = table_arg(ck, c)
    if table == "":
        ck.error(
            "type",
            "resolve() reads a table named in quotes",
            c.args[0],
            'for example: resolve("crt", attack, defence)',
        )
        table = None
    if table is not None and table.kind != "column":
        ck.error(
            "type",
            f"table {table.id!r} is a {table.kind} table; resolve() reads column tables "
            "(a combat results table: dice rows by odds or value columns)",
            c.args[0],
            f'for a {table.kind} table use lookup("{table.id}", ...)',
        )
        table = None
    strengths = c.args[1:]
    if table is not None:
        want = 2 if table.column_by == "odds" else 1
        if len(strengths) != want:
            what = (
                "the attack and defence strengths"
                if want == 2
                else f"one {table.column_key or 'value'}"
            )
            ck.error(
                "arity",
                f"resolve() of table {table.id!r} takes {what} after the table, "
                f"not {len(strengths)} argument{'s' if len(strengths) != 1 else ''}",
                c,
            )
    for k in strengths:
        ck.expect(k, ck.expr(k), ir.INT, "a strength of resolve()")
    shifts = {s.id: s for s in table.shifts} if table is not None else {}
    for name, value in c.kwargs.items():
        got = ck.expr(value)
        spec = shifts.get(name)
        if table is None:
            continue  # the table is in error: its shifts are unknown
        if name in RESOLVE_KWARGS:
            ck.expect(value, got, ir.INT, f"{name}=")
        elif spec is None:
            known = [*shifts, *RESOLVE_KWARGS]
            ck.error(
                "unknown-name",
                f"table {table.id!r} has no shift {name!r}",
                c.src.pos(c.kwarg_offs.get(name, value.off)),
                did_you_mean(name, known) or "shifts: " + ", ".join(known),
            )
        elif got == ir.BOOL and spec.amount is not None:
            pass  # true: the shift's fixed amount
        else:
            what = f"shift {name}= (a number of columns"
            what += f", or true for {spec.amount})" if spec.amount is not None else ")"
            ck.expect(value, got, ir.INT, what)
    return ir.rolled(table.id) if table is not None else ir.ANY


def check_table_sum(gives: ir.Type) -> TypeRule:
    """``modifiers`` and ``allows``: a table and the arguments of its programs."""

    def rule(ck: Checker, c: Call) -> ir.Type:
        table_params(ck, c, table_arg(ck, c), c.args[1:])
        return gives

    return rule


def check_apply(ck: Checker, c: Call) -> ir.Type:
    if not c.args:
        ck.arity(c, 1, 99)
        return ir.VOID
    rt = ck.expr(c.args[0])
    if rt == ir.ANY:  # after an error
        for a in c.args[1:]:
            ck.expr(a)
        return ir.VOID
    if rt.kind != "result":
        ck.error("type", f"apply() runs a table result, not {article(rt)}", c.args[0])
        return ir.VOID
    table: Any = ck.game.tables.get(rt.name) if rt.name else ""
    table_params(ck, c, table, c.args[1:])
    return ir.VOID


def check_choose(ck: Checker, c: Call) -> ir.Type:
    _, opts, _ = ck.args(c, ir.PLAYER, ir.list_of(ir.ANY), ir.STR)
    ck.prompt_arg(c, 2)
    return ck.option_type(c, opts)


def check_choose_optional(ck: Checker, c: Call) -> ir.Type:
    _, opts, _, _ = ck.args(c, ir.PLAYER, ir.list_of(ir.ANY), ir.STR, ir.STR)
    ck.prompt_arg(c, 2)
    ck.prompt_arg(c, 3)
    return ck.option_type(c, opts)


def check_choose_yes_no(ck: Checker, c: Call) -> ir.Type:
    ck.args(c, ir.PLAYER, ir.STR)
    ck.prompt_arg(c, 1)
    return ir.BOOL


def check_choose_number(ck: Checker, c: Call) -> ir.Type:
    ck.args(c, ir.PLAYER, ir.INT, ir.INT, ir.STR)
    ck.prompt_arg(c, 3)
    return ir.INT


def check_allocate(ck: Checker, c: Call) -> ir.Type:
    _, _, targets, _ = ck.args(c, ir.PLAYER, ir.INT, ir.list_of(ir.ANY), ir.STR)
    ck.prompt_arg(c, 3)
    if "max_each" in c.kwargs:
        me = c.kwargs["max_each"]
        ck.expect(me, ck.expr(me), ir.INT, "max_each")
    elem = ck.option_type(c, targets)
    return ir.list_of(elem)


def check_choose_some(ck: Checker, c: Call) -> ir.Type:
    _, opts, _ = ck.args(c, ir.PLAYER, ir.list_of(ir.ANY), ir.STR)
    ck.prompt_arg(c, 2)
    for k in ("min", "max"):
        if k in c.kwargs:
            ck.expect(c.kwargs[k], ck.expr(c.kwargs[k]), ir.INT, k)
    elem = ck.option_type(c, opts)
    picked = ir.list_of(elem)
    where = c.kwargs.get("where")
    if where is None:
        return picked
    r = ck.game.functions.get(where.func) if isinstance(where, Call) else None
    if r is None:
        ck.error(
            "type",
            "where= names a function and its arguments but the pick: `where=fits(p)` "
            "for a function fits(p, picked) that returns a bool",
            where,
        )
        return picked
    where.ref = r
    where.ty = r.returns
    if len(r.params) != len(where.args) + 1:
        ck.error(
            "arity",
            f"{r.name}() takes {len(r.params)} argument{'s' if len(r.params) != 1 else ''}; "
            "where= gives all but the last, "
            "the pick",
            where,
        )
        return picked
    for a, (_name, t) in zip(where.args, r.params, strict=False):
        ck.expect(a, ck.expr(a), t, f"argument of {r.name}")
    last = r.params[-1][1]
    if not (compatible(picked, last) and r.returns == ir.BOOL):
        ck.error(
            "type",
            f"where= needs a function whose last parameter takes the pick ({picked}) and that "
            f"returns bool; {r.name} takes {last} and returns {r.returns}",
            where,
        )
    return picked


def check_report(ck: Checker, c: Call) -> ir.Type:
    ck.args(c, ir.PLAYER, ir.STR)
    ck.prompt_arg(c, 1)
    if not ck.game.facts():
        ck.error(
            "report",
            "report() changes external facts, and this game declares none",
            c,
            "declare a field with fact: true in game.yaml",
        )
    return ir.BOOL


def check_end_game(ck: Checker, c: Call) -> ir.Type:
    ck.args(c, ir.list_of(ir.PLAYER), ir.STR)
    if "shared" in c.kwargs:
        sh = c.kwargs["shared"]
        if not isinstance(sh, Bool):
            ck.error("type", "shared= is true or false", sh)
        else:
            sh.ty = ir.BOOL
    return ir.VOID


def _graph_type(ck: Checker, c: Call, start: ir.Type) -> ir.Type:
    """The entity type of a graph builtin's start, which must have `adjacent`."""
    et = ck.game.entities.get(start.name) if start.kind == "entity" else None
    adj = et.attributes.get("adjacent") if et is not None else None
    if start != ir.ANY and (adj is None or adj.type != ir.list_of(start)):
        ck.error(
            "type",
            f"{c.func}() walks the attribute `adjacent` of a record, and {article(start)} has none",
            c.args[0],
            "declare adjacent: {type: <plural>} among the entity's attributes",
        )
    return start


def _board_type(ck: Checker, c: Call, t: ir.Type, node: Expr) -> bool:
    """Whether ``t`` is the type of the board's hexes (else an error at ``node``)."""
    board = ck.game.board
    if t == ir.ANY or (board is not None and t == ir.entity(board.entity)):
        return True
    if board is None:
        ck.error(
            "type",
            f"{c.func}() reads the hex grid of board.yaml, and this game has none",
            node,
            "declare a board in rules/<game>/board.yaml (see Boards in docs/language.md)",
        )
    else:
        ck.error(
            "type",
            f"{c.func}() takes hexes of the board ({board.entity}), not {article(t)}",
            node,
        )
    return False


def _scheme(ck: Checker, c: Call, start: ir.Type) -> None:
    """``costs="<scheme>"``: a cost scheme of the board, in quotes."""
    a = c.kwargs.get("costs")
    if a is None:
        return
    board = ck.game.board
    if not _board_type(ck, c, start, c.args[0]) or board is None:
        ck.expr(a)
        return
    if not (isinstance(a, Str) and a.is_plain):
        ck.error("type", "costs= is the name of a cost scheme of the board, in quotes", a)
        return
    a.ty = ir.STR
    if a.plain not in board.costs:
        ck.error(
            "unknown-name",
            f"unknown cost scheme {a.plain!r}",
            a,
            did_you_mean(a.plain, board.costs)
            or "cost schemes: " + (", ".join(board.costs) or "none (board.yaml costs:)"),
        )


def check_reachable(ck: Checker, c: Call) -> ir.Type:
    start, _ = ck.args(c, ir.ANY, ir.list_of(ir.ANY))
    t = _graph_type(ck, c, start)
    ck.expect(c.args[1], c.args[1].ty or ir.ANY, ir.list_of(t), "argument 2 of reachable()")
    if "within" in c.kwargs:
        w = c.kwargs["within"]
        ck.expect(w, ck.expr(w), ir.INT, "within=")
    if "stop" in c.kwargs:
        st = c.kwargs["stop"]
        ck.expect(st, ck.expr(st), ir.list_of(t), "stop=")
    _scheme(ck, c, start)
    return ir.list_of(t)


def check_path_cost(ck: Checker, c: Call) -> ir.Type:
    start, *_ = ck.args(c, ir.ANY, ir.ANY, ir.list_of(ir.ANY), ir.list_of(ir.ANY))
    t = _graph_type(ck, c, start)
    if len(c.args) == 4:
        ck.expect(c.args[1], c.args[1].ty or ir.ANY, t, "argument 2 of path_cost()")
        for i in (2, 3):
            a = c.args[i]
            ck.expect(a, a.ty or ir.ANY, ir.list_of(t), f"argument {i + 1} of path_cost()")
    _scheme(ck, c, start)
    return ir.INT


def check_distance(ck: Checker, c: Call) -> ir.Type:
    a, b = ck.args(c, ir.ANY, ir.ANY)
    if len(c.args) == 2 and _board_type(ck, c, a, c.args[0]):
        _board_type(ck, c, b, c.args[1])
    return ir.INT


def check_crosses(ck: Checker, c: Call) -> ir.Type:
    if not ck.arity(c, 3):
        for x in c.args:
            ck.expr(x)
        return ir.BOOL
    a, b = ck.expr(c.args[0]), ck.expr(c.args[1])
    if not (_board_type(ck, c, a, c.args[0]) and _board_type(ck, c, b, c.args[1])):
        return ir.BOOL
    board = ck.game.board
    f = c.args[2]
    if not (isinstance(f, Str) and f.is_plain):
        ck.error("type", 'the feature of crosses() is its name in quotes: "river"', f)
        return ir.BOOL
    f.ty = ir.STR
    if board is not None and f.plain not in board.features:
        ck.error(
            "unknown-name",
            f"unknown hexside feature {f.plain!r}",
            f,
            did_you_mean(f.plain, board.features)
            or "features: " + (", ".join(board.features) or "none (board.yaml features:)"),
        )
    return ir.BOOL


def check_propose(ck: Checker, c: Call) -> ir.Type:
    ck.args(c, ir.PLAYER, ir.list_of(ir.PLAYER), ir.STR)
    ck.prompt_arg(c, 2)
    if not ck.game.goods:
        ck.error(
            "negotiation",
            "propose() offers goods, and this game declares none",
            c,
            "declare negotiation: {goods: ...} in rules.yaml",
        )
    return ir.DEAL


def check_promised(ck: Checker, c: Call) -> ir.Type:
    if not ck.arity(c, 3, 4):
        return ir.BOOL
    a = c.args[0]
    name = a.plain if isinstance(a, Str) and a.is_plain else ""
    field = f"promised_{name}"
    if name not in ck.game.promises:
        ck.error(
            "unknown-name",
            "the first argument of promised() is a promise of the game, in quotes",
            a,
            "promises: " + (", ".join(ck.game.promises) or "none declared"),
        )
        for x in c.args[1:]:
            ck.expr(x)
        return ir.BOOL
    a.ty = ir.STR
    if len(c.args) == 4:
        about = ck.game.promise_about.get(name)
        if about is None:
            ck.error(
                "arity",
                f"promise {name!r} is given whole: promised() takes 3 arguments for it",
                c.args[3],
                "drop the last argument, or give the promise item: and from:",
            )
            for x in c.args[1:]:
                ck.expr(x)
            return ir.BOOL
        ck.expect(c.args[3], ck.expr(c.args[3]), about, f"what promise {name!r} is about")
        # the pair (b, x) among the pairs of a.promised_<name> and a.promised_<name>_about
        whom = Attr(c.src, c.off, c.args[1], field)
        what = Attr(c.src, c.off, c.args[1], field + "_about")
        ck.expr(whom)
        ck.expr(what)
        ck.expr(c.args[2])
        c.ref = (whom, what)
        return ir.BOOL
    # the test `b in a.promised_<name>`, kept on the call for the code generator
    test = In(c.src, c.off, c.args[2], Attr(c.src, c.off, c.args[1], field), False)
    ck.expr(test)
    c.ref = test
    return ir.BOOL
