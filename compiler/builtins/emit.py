"""How the builtins are compiled: the code of a value in an expression (the expression
generator calls these with itself and the call), the line of a statement and the options of a
decision (the routine generator's)."""

from __future__ import annotations

import copy

from .. import ir
from ..effects import Bool, Call, Comp, Str
from ..tables.programs import routine_name
from .row import Emitter, ExprGen, RoutineGen


def emit_count(eg: ExprGen, c: Call) -> str:
    m = eg.mask(c.args[0])
    if m is not None:
        return f"_count({m})"
    arg = eg.inl(c.args[0])
    if isinstance(arg, Comp):
        found = eg.element_count(arg)
        if found is not None:
            return found
    return f"len({eg.expr(arg)})"


def emit_minmax(eg: ExprGen, c: Call) -> str:
    if len(c.args) == 1:
        return f"{c.func}({eg.iterable(c.args[0])})"
    return f"{c.func}({', '.join(eg.expr(a) for a in c.args)})"


def emit_first(eg: ExprGen, c: Call) -> str:
    m = eg.mask(c.args[0])
    if m is not None:
        return f"_first({m})"
    # an empty list is a rules error with its place, not Python's IndexError
    return f"_head({eg.expr(c.args[0])})"


def emit_nth(eg: ExprGen, c: Call) -> str:
    # an index out of range is a rules error with its place, not Python's IndexError
    return f"_nth({eg.iterable(c.args[0])}, {eg.expr(c.args[1])})"


def emit_graph(eg: ExprGen, c: Call) -> str:
    """``reachable`` and ``path_cost``: the records' ``adjacent`` and the arguments, the
    lists as sets; with keyword arguments, the weighted forms (``costs=`` a board's steps
    with their costs, ``within=`` a budget, ``stop=`` records that end a way)."""
    t = c.args[0].ty
    adj = f"self.s_e_{t.name}__adjacent"
    args = [eg.expr(c.args[0])]
    if c.func == "path_cost":
        args.append(eg.expr(c.args[1]))
    args += [f"set({eg.iterable(a)})" for a in c.args[len(args) :]]
    if not c.kwargs:
        return f"_{c.func}({adj}, {', '.join(args)})"
    scheme = c.kwargs.get("costs")
    steps = f"self.bd_cost__{scheme.plain}" if isinstance(scheme, Str) else "None"
    if c.func == "path_cost":
        return f"_path_cost_by({adj}, {steps}, {', '.join(args)})"
    within = c.kwargs.get("within")
    stop = c.kwargs.get("stop")
    more = [
        eg.expr(within) if within is not None else "-1",
        f"set({eg.iterable(stop)})" if stop is not None else "None",
    ]
    return f"_reach({adj}, {steps}, {', '.join(args + more)})"


def emit_distance(eg: ExprGen, c: Call) -> str:
    return f"_distance(self.bd_axial, {eg.expr(c.args[0])}, {eg.expr(c.args[1])})"


def emit_crosses(eg: ExprGen, c: Call) -> str:
    f = c.args[2]
    assert isinstance(f, Str)
    return f"({eg.expr(c.args[1])} in self.bd_side__{f.plain}[{eg.expr(c.args[0])}])"


def emit_promised(eg: ExprGen, c: Call) -> str:
    # the test the checker built, on this call's arguments (an inlined call has its
    # arguments substituted; the test it built still names the parameters)
    if isinstance(c.ref, tuple):
        whom, what = (copy.copy(f) for f in c.ref)
        whom.obj = what.obj = c.args[1]
        b, x = eg.expr(c.args[2]), eg.expr(c.args[3])
        pairs = f"zip({eg.expr(whom)}, {eg.expr(what)}, strict=True)"
        return f"any(_pq == {b} and _px == {x} for _pq, _px in {pairs})"
    coll = copy.copy(c.ref.coll)
    coll.obj = c.args[1]
    test = copy.copy(c.ref)
    test.item, test.coll = c.args[2], coll
    return eg.expr(test)


def emit_plural(eg: ExprGen, c: Call) -> str:
    n, one, many = (eg.expr(a) for a in c.args)
    return f"({one} if {n} in (1, -1) else {many})"


def emit_playable(eg: ExprGen, c: Call) -> str:
    card, player = eg.expr(c.args[0]), eg.expr(c.args[1])
    return f"(self.card_playable[{card}] is None or self.playable(S, {card}, {player}))"


def emit_lookup(eg: ExprGen, c: Call) -> str:
    keys = "".join(", " + eg.expr(k) for k in c.args[1:])
    tid = eg.static_table(c.args[0])
    if tid is not None:
        return f"_lookup(self.t_{tid}, {eg.table_index(tid)}{keys})"
    t = eg.expr(c.args[0])
    return f"_lookup(self.tabs[{t}], {t}{keys})"


#: `resolve`'s shifts by direction: the sign the runtime gives them (0: signed, either way)
SHIFT_SIGNS = {"right": 1, "left": -1, "either": 0}


def emit_resolve(eg: ExprGen, c: Call) -> str:
    """``_resolve(S, table data, table number, log template, strengths, shifts, modifier)``:
    each shift ``(label, sign, max, amount)`` as the table declares it."""
    tid = eg.static_table(c.args[0])
    if tid is None or eg.tables is None:  # the checker allows neither
        raise ValueError("resolve() outside a routine, or of a table value")
    table = eg.sd.game.tables[tid]
    specs = {s.id: s for s in table.shifts}
    strengths = "".join(eg.expr(a) + ", " for a in c.args[1:])
    shifts, modifier = [], "0"
    for name, value in c.kwargs.items():
        code = eg.expr(value)
        if name == "modifier":
            modifier = code
            continue
        if name == "shifts":
            shifts.append(f"('', 0, None, {code})")
            continue
        spec = specs[name]
        if value.ty == ir.BOOL:
            code = f"({spec.amount} if {code} else 0)"
        label = name.replace("_", " ")
        shifts.append(f"({label!r}, {SHIFT_SIGNS[spec.direction]}, {spec.max!r}, {code})")
    said = eg.tables.template(("", ""), ("resolve",))
    shift_code = "(" + "".join(s + ", " for s in shifts) + ")"
    return (
        f"_resolve(S, self.t_{tid}, {eg.table_index(tid)}, {said}, ({strengths}), "
        f"{shift_code}, {modifier})"
    )


def emit_table_program(part: str, default: str) -> Emitter:
    """``modifiers`` and ``allows``: the table's program of that part, or its default when
    the table has none."""

    def emit(eg: ExprGen, c: Call) -> str:
        args = [eg.expr(a) for a in c.args[1:]]
        tid = eg.static_table(c.args[0])
        if tid is not None:
            r = eg.sd.game.functions.get(routine_name(tid, part))
            if r is None:
                return default
            return f"self.f_{r.name}({', '.join(['S', *args])})"
        t = eg.expr(c.args[0])
        return f"self.tfun_{part}[{t}]({', '.join(['S', *args])})"

    return emit


def emit_table_terms(eg: ExprGen, c: Call) -> str:
    """``modifier_terms``: the modifiers of a table that add something, named (the prelude's
    ``terms`` over the table's ``terms`` program and its modifiers' names)."""
    args = [eg.expr(a) for a in c.args[1:]]
    tid = eg.static_table(c.args[0])
    if tid is not None:
        r = eg.sd.game.functions.get(routine_name(tid, "terms"))
        if r is None:
            return '""'
        names = eg.sd.game.table_terms.get(tid, ())
        return f"_terms({names!r}, self.f_{r.name}({', '.join(['S', *args])}))"
    if not eg.sd.game.table_terms:
        return '""'
    t = eg.expr(c.args[0])
    call = f"self.tfun_terms[{t}]({', '.join(['S', *args])})"
    return f"_terms(self.tterm_names[{t}], {call})"


def run_end_game(g: RoutineGen, c: Call) -> str:
    shared = c.kwargs.get("shared")
    flag = ", True" if isinstance(shared, Bool) and shared.value else ""
    return f"_end(S, {g.iterable(c.args[0])}, {g.expr(c.args[1])}{flag})"


def run_play(g: RoutineGen, c: Call) -> str:
    card, player = g.expr(c.args[0]), g.expr(c.args[1])
    if g.form == "Q":
        return f"self.play_q(S, R, {card}, {player})"
    if g.cards_wait:
        g.fail("play() of a card that may wait outside a resume point")
    return f"self.play_p(S, {card}, {player})"


def resume_play(g: RoutineGen, c: Call) -> str:
    card, player = g.expr(c.args[0]), g.expr(c.args[1])
    return f"self.play_r(S, {card}, {player})"


def run_apply(g: RoutineGen, c: Call) -> str:
    """Run the program of the row a table result came from (its cell, for range tables)."""
    r = g.atom(g.expr(c.args[0]))
    args = [g.expr(a) for a in c.args[1:]]
    rt = c.args[0].ty
    tid = rt.name if rt is not None and rt.kind == "result" else ""
    if tid:
        prog = g.sd.game.functions.get(routine_name(tid, "apply"))
        if prog is None:
            return "pass"
        return f"self.p_{prog.name}({', '.join(['S', *args, f'{r}[1]'])})"
    return f"self.tfun_apply[{r}[0]]({', '.join(['S', *args, f'{r}[1]'])})"


# -- decisions


def options_choose_number(g: RoutineGen, c: Call) -> tuple[str, str]:
    lo, hi = g.expr(c.args[1]), g.expr(c.args[2])
    return f"tuple(range({lo}, {hi} + 1))", "number"


def options_propose(g: RoutineGen, c: Call) -> tuple[str, str]:
    return f"_offers(self, S, {g.expr(c.args[0])}, {g.iterable(c.args[1])})", "offer"


def options_allocate(g: RoutineGen, c: Call) -> tuple[str, str]:
    seq = c.args[2]
    kind = g.option_kind(seq.ty.elem if seq.ty is not None else None)
    cap = c.kwargs.get("max_each")
    most = f", {g.expr(cap)}" if cap is not None else ""
    points = g.expr(c.args[1])
    return f"Split({points}, {g.iterable(seq)}{most})", "alloc:" + kind


def options_choose_some(g: RoutineGen, c: Call) -> tuple[str, str]:
    """Every pick, listed (``_subsets``), kept where the function ``where`` holds."""
    seq = c.args[1]
    kind = g.option_kind(seq.ty.elem if seq.ty is not None else None)
    lo = g.expr(c.kwargs["min"]) if "min" in c.kwargs else "1"
    hi = g.expr(c.kwargs["max"]) if "max" in c.kwargs else "-1"
    code = f"_subsets({g.iterable(seq)}, {lo}, {hi})"
    where = c.kwargs.get("where")
    if isinstance(where, Call) and isinstance(where.ref, ir.Routine):
        x = g.fresh("pk")
        args = ", ".join(["S", *(g.expr(a) for a in where.args), x])
        code = f"tuple({x} for {x} in {code} if self.f_{where.ref.name}({args}))"
    return code, "some:" + kind


def answered_report(g: RoutineGen) -> None:
    """A report is logged, then applied to the facts (``v``: whether one changed)."""
    said = g.tables.template(("Reported: ", ""), ("report",))
    g.arm_line(0, "if v is not None:")
    g.arm_line(1, f"_log(S, {said}, (v,))")
    g.arm_line(0, "v = _report(S, v, self.facts)")
