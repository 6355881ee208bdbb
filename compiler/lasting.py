"""Lasting effects: the `effects:` section of rules.yaml, lowered to fields and routines.

```yaml
effects:
  embargo:
    title: Embargo
    doc: The target may not trade and its income falls by 1.
    scope: {target: player}            # one param: a player or a record; none: the whole game
    modifies:                          # functions that give an int: added while in force
      income: {by: "-1", where: "p == target"}
    forbids:                           # functions that give a bool: false while in force
      may_trade: "p == target"
    permits:                           # ... true while in force (a prohibition wins)
      may_tax: "true"
    replaces:                          # procedures: their calls run this instead
      collect: {where: "p == target", with: "log \\"{p}'s harvest is seized\\""}
    until: "target.vp >= 3"            # ends when this holds, checked after every flow step
    check_after: [take_action]         # ... and after each call of these procedures
    ends_at: turn.harvest              # ends when this flow step ends
```

``start embargo(blue)`` puts an effect in force, ``end embargo(blue)`` ends it and
``in_force(embargo, blue)`` asks whether it is. The rules the effect changes know nothing of
it: nothing new reaches the runtime. What is in force is the int field ``effect__<name>``
(a global, a player field or a field of the scope's records): 0 when not in force, else the
number of the statement that started it, whose text ``lasting__why(k)`` gives (``card
Embargo``). Per scenario (`weave_lasting`, after its overlays) a function the effect changes
moves to ``<f>__base`` and ``f`` becomes its value plus the modifiers in force (``permits``
and ``forbids`` for a bool); a replaced procedure moves to ``<p>__base`` and ``p`` calls the
replacement of the first effect in force whose ``where`` holds, else the original. Each flow
step moves into ``<step>__lasting``; the step runs it, ends the effects whose ``ends_at`` it
is, and checks every ``until``. The board display ``board__lasting`` (title "In force") lists
what is in force and why.
"""

from __future__ import annotations

import copy
from typing import Any

from . import ir
from .diagnostics import DiagnosticSink, Position, did_you_mean
from .effects import (
    Call,
    ExprStmt,
    Int,
    Lasting,
    Name,
    Return,
    Snippet,
    Stmt,
    parse_into,
    walk,
)

__all__ = ["add_lasting", "weave_lasting", "lasting_call_name", "FIELD", "DISPLAY"]

#: the field that holds whether effect E is in force (and why): ``effect__E``
FIELD = "effect__{}"
#: the board display of what is in force: the procedure ``board__lasting``
DISPLAY = "lasting"
WHY = "lasting__why"
CHECK = "lasting__check"
CAUSE = "lasting__cause"
KINDS = ("modifies", "forbids", "permits", "replaces")


def lasting_call_name(func: str) -> str:
    """How a message names a routine: ``start embargo`` for ``effect__embargo__start``, the
    statement or builtin it was written as; ``income`` for ``income__base``, the function an
    effect changes; any other routine by its own name."""
    parts = func.split("__")
    if len(parts) == 3 and parts[0] == "effect":
        if parts[2] in ("start", "end"):
            return f"{parts[2]} {parts[1]}"
        if parts[2] == "in_force":
            return f"in_force({parts[1]}, ...)"
    if len(parts) == 2 and parts[1] == "base":  # a function an effect changes, as written
        return parts[0]
    return func


def _literal(text: str) -> str:
    """``text`` as a string literal of the effect language that logs it as written."""
    text = " ".join(text.split())
    text = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + text.replace("{", "{{").replace("}", "}}") + '"'


def add_lasting(b: Any, game: ir.Game, sink: DiagnosticSink) -> None:
    """Declare the effects of `effects:` in rules.yaml: their fields, the routines that start,
    end and ask about them, and the board display of what is in force. What they change is
    woven in per scenario (`weave_lasting`)."""
    doc = b.doc("rules.yaml")
    if doc is None or not isinstance(doc.data.get("effects"), dict):
        return
    for name, spec in doc.data["effects"].items():
        effect = _effect(b, game, doc, str(name), spec, sink)
        if effect is not None:
            game.lasting.append(effect)
    if game.lasting:
        _display(game, doc.key_pos(("effects",)), sink)


def _effect(
    b: Any, game: ir.Game, doc: Any, name: str, spec: dict, sink: DiagnosticSink
) -> ir.LastingEffect | None:
    path = ("effects", name)
    pos = doc.key_pos(path)
    if game.routine(name) is not None or name in game.globals or name in game.constants:
        sink.error(
            "duplicate-name",
            f"effect {name!r} has the name of a routine or field already declared",
            pos,
            "rename the effect: `start NAME(...)` names it apart from the rules' routines",
        )
        return None
    params = b._params(game, doc, path, {"params": spec.get("scope") or {}})
    if len(params) > 1:
        sink.error(
            "schema",
            f"effect {name!r} has {len(params)} scope params; an effect has at most one",
            doc.key_pos((*path, "scope")),
            "scope an effect to one player or record (or to the game, without scope:); "
            "say what else it needs in its where: conditions",
        )
        params = params[:1]  # kept, so that its uses are not errors too
    scope = None
    if params:
        sname, stype = params[0]
        if stype != ir.PLAYER and not (stype.kind == "entity" and stype.name in game.entities):
            sink.error(
                "type",
                f"effect {name!r} is scoped to a {stype}; a scope is a player or an entity type",
                doc.pos((*path, "scope", sname)),
                "write scope: {target: player} or {target: <an entity type>}, or leave the "
                "scope out for an effect on the whole game",
            )
            return None
        scope = (sname, stype)
    effect = ir.LastingEffect(
        name,
        str(spec.get("title") or name.replace("_", " ").capitalize()),
        b.origin(doc, path, spec),
        scope,
    )
    ok = True
    for kind in KINDS:
        for target, entry in (spec.get(kind) or {}).items():
            epath = (*path, kind, target)
            change = ir.LastingChange(kind, str(target), doc.key_pos(epath))
            if isinstance(entry, str):
                entry = {"where": entry} if kind != "modifies" else {"by": entry}
                where_path, by_path = epath, epath
            else:
                where_path, by_path = (*epath, "where"), (*epath, "by")
            what = f"{kind} {target} of effect {name!r}"
            if "where" in entry:
                change.where = b.expression(doc, where_path, what)
                change.text = str(entry["where"])
                ok = ok and change.where is not None
            if kind == "modifies":
                change.by = b.expression(doc, by_path, what)
                change.text = f"{entry['by']}" + (
                    f" where {entry['where']}" if "where" in entry else ""
                )
                ok = ok and change.by is not None
            if kind == "replaces":
                change.body = b.program(doc, (*epath, "with"), what)
                ok = ok and change.body is not None
            effect.changes.append(change)
    if "until" in spec:
        effect.until = b.expression(doc, (*path, "until"), f"until of effect {name!r}")
        effect.until_text = str(spec["until"])
        ok = ok and effect.until is not None
    if "ends_at" in spec:
        effect.ends_at = (str(spec["ends_at"]), doc.pos((*path, "ends_at")))
    for i, proc in enumerate(spec.get("check_after") or ()):
        effect.check_after.append((str(proc), doc.pos((*path, "check_after", i))))
    if not ok:
        return None
    field = FIELD.format(name)
    declared = ir.Field(
        field,
        ir.INT,
        ir.Origin(pos, effect.origin.rules, f"whether {effect.title} is in force, and why"),
        min=0,
        title=f"{effect.title} in force",
        internal=True,
    )
    if scope is None:
        game.globals[field] = declared
    elif scope[1] == ir.PLAYER:
        game.player_fields[field] = declared
    else:
        game.entities[scope[1].name].fields[field] = declared
    _basics(game, effect, sink)
    return effect


def _every(game: ir.Game, effect: ir.LastingEffect) -> str:
    """The list of every record the effect's scope may name: ``players``, ``nations``."""
    assert effect.scope is not None
    t = effect.scope[1]
    return "players" if t == ir.PLAYER else game.entities[t.name].plural


def _routine(
    game: ir.Game,
    name: str,
    kind: str,
    params: list,
    returns: ir.Type,
    text: str,
    origin: ir.Origin,
    sink: DiagnosticSink,
) -> None:
    """Add a routine written in the effect language (its errors point at ``origin``)."""
    body = parse_into(Snippet(text, lambda off, p=origin.pos: p, name), sink)
    if body is not None:
        game.functions[name] = ir.Routine(name, kind, params, returns, body, origin)  # type: ignore[arg-type]


def _basics(game: ir.Game, effect: ir.LastingEffect, sink: DiagnosticSink) -> None:
    """``effect__E__in_force``, ``__start``, ``__end``, ``__end_all`` and ``__check``."""
    e, pre, origin = effect.name, f"effect__{effect.name}__", effect.origin
    title = _literal(effect.title)[1:-1]
    cause = [(CAUSE, ir.INT)]
    if effect.scope is None:
        s, params, field, on, each = "", [], FIELD.format(e), "", ""
    else:
        s = effect.scope[0]
        params = [effect.scope]
        field, on = f"{s}.{FIELD.format(e)}", f" on {{{s}}}"
        each = f"for {s} in {_every(game, effect)}:\n"
    _routine(
        game, pre + "in_force", "function", params, ir.BOOL, f"return {field} > 0\n", origin, sink
    )
    start = f'{field} = {CAUSE}\nlog "{title} is in force{on} ({{{WHY}({CAUSE})}})"\n'
    _routine(game, pre + "start", "procedure", params + cause, ir.VOID, start, origin, sink)
    end = f'if {field} > 0:\n    {field} = 0\n    log "{title} ends{on} ({{{WHY}({CAUSE})}})"\n'
    _routine(game, pre + "end", "procedure", params + cause, ir.VOID, end, origin, sink)
    args = s
    ind = "    " if each else ""
    end_all = f"{each}{ind}{pre}end({args}{', ' if args else ''}{CAUSE})\n"
    _routine(game, pre + "end_all", "procedure", cause, ir.VOID, end_all, origin, sink)
    if effect.until is not None:
        game.functions[pre + "until"] = ir.Routine(
            pre + "until",
            "function",
            list(params),
            ir.BOOL,
            [Return(effect.until.src, effect.until.off, effect.until)],
            origin,
        )
        check = (
            f"{each}{ind}if {field} > 0 and {pre}until({args}):\n"
            f"{ind}    {pre}end({args}{', ' if args else ''}{CAUSE})\n"
        )
        _routine(game, pre + "check", "procedure", cause, ir.VOID, check, origin, sink)


def _display(game: ir.Game, pos: Position, sink: DiagnosticSink) -> None:
    """The board display ``board__lasting``: each effect in force, on whom, why, what it does."""
    lines = []
    for effect in game.lasting:
        e = effect.name
        title = _literal(effect.title)[1:-1]
        doc = effect.origin.doc
        does = f": {_literal(doc)[1:-1]}" if doc else ""
        if effect.scope is None:
            lines.append(
                f"if {FIELD.format(e)} > 0:\n"
                f'    log "{title} ({{{WHY}({FIELD.format(e)})}}){does}"\n'
            )
        else:
            s = effect.scope[0]
            lines.append(
                f"for {s} in {_every(game, effect)}:\n"
                f"    if {s}.{FIELD.format(e)} > 0:\n"
                f'        log "{title} on {{{s}}} ({{{WHY}({s}.{FIELD.format(e)})}}){does}"\n'
            )
    origin = ir.Origin(pos, (), "what is in force, and why")
    _routine(game, "board__" + DISPLAY, "procedure", [], ir.VOID, "".join(lines), origin, sink)
    game.displays.append((DISPLAY, "In force"))


# ---------------------------------------------------------------------------- per scenario


def weave_lasting(b: Any, game: ir.Game) -> None:
    """Lower ``start``/``end``/``in_force`` everywhere, and weave each effect into what it
    changes, ends at and is checked after, in this scenario's routines."""
    sink = b.sink
    effects = {e.name: e for e in game.lasting}
    causes: list[str] = []
    plan: Plan = {}
    for effect in game.lasting:
        _weave_changes(game, effect, plan, sink)
    _rewrite(game, plan, sink)
    ends: dict[str, list[str]] = {}  # flow routine -> effects that end there
    for effect in game.lasting:
        if effect.ends_at is not None:
            routine = _flow_step(game, effect.ends_at[0])
            if routine is None:
                sink.error(
                    "undefined",
                    f"effect {effect.name!r} ends at {effect.ends_at[0]!r}, which is not a "
                    "flow step",
                    effect.ends_at[1],
                    did_you_mean(effect.ends_at[0], _step_names(game))
                    or "a flow step: turn.<step>, setup.<step> or end_of_turn.<step>",
                )
            else:
                ends.setdefault(routine.name, []).append(effect.name)
        for proc, pos in effect.check_after:
            target = game.functions.get(proc)
            if target is None or target.kind != "procedure" or "__" in proc:
                known = [
                    n for n, r in game.functions.items() if r.kind == "procedure" and "__" not in n
                ]
                sink.error(
                    "undefined",
                    f"effect {effect.name!r} is checked after {proc!r}, which is not a procedure",
                    pos,
                    did_you_mean(proc, known) or "name a procedure of rules.yaml",
                )
            elif effect.until is None:
                sink.error(
                    "schema",
                    f"effect {effect.name!r} is checked after {proc!r} but has no until:",
                    pos,
                    "add until: <the condition that ends it>, or drop check_after:",
                )
            else:
                k = _cause(causes, f"until {effect.until_text}")
                key = f"effect__{effect.name}__check__after__{proc}"
                body = parse_into(
                    Snippet(
                        f"effect__{effect.name}__check({k})\n", lambda off, p=pos: p, "check_after"
                    ),
                    sink,
                )
                if body is not None:
                    game.hooks[key] = ir.Hook(key, "after", proc, body, ir.Origin(pos, (), ""))  # type: ignore[arg-type]
    _weave_flow(b, game, ends, causes, sink)
    cards = {id(c.effect): c for c in game.cards.values()}
    own = game.functions  # a function named in_force is the rules' own
    for routine in game.routines():
        _lower(routine.body, _site(routine, cards), effects, causes, sink, own)
    for hook in game.hooks.values():
        _lower(hook.body, f"procedure {hook.target}", effects, causes, sink, own)
    if not game.lasting and not causes:
        return
    text = "".join(
        f"if {CAUSE} == {k}:\n    return {_literal(c)}\n" for k, c in enumerate(causes, 1)
    )
    pos = (game.lasting[0].origin if game.lasting else game.origin).pos
    origin = ir.Origin(pos, (), "why an effect is in force or ended, by the number of its cause")
    _routine(game, WHY, "function", [(CAUSE, ir.INT)], ir.STR, text + 'return "?"\n', origin, sink)


def _cause(causes: list[str], text: str) -> int:
    """The number of a cause's text (from 1; 0 means not in force)."""
    if text not in causes:
        causes.append(text)
    return causes.index(text) + 1


def _site(routine: ir.Routine, cards: dict[int, ir.Card]) -> str:
    """How a log line and the board name what a statement in ``routine`` stands for."""
    if id(routine) in cards:
        return f"card {cards[id(routine)].name}"
    name = routine.name  # a flow step's body may have moved to <step>__rules, <step>__lasting
    for prefix, section in (("setup__", "setup"), ("turn__", "turn"), ("end__", "end_of_turn")):
        if name.startswith(prefix):
            return f"{section}.{name[len(prefix) :].split('__')[0]}"
    if name.startswith("effect__"):
        return f"effect {name.split('__')[1]}"
    if name.startswith("window__"):
        return f"window {name.split('__')[1]}"
    return name.split("__")[0]


def _lower(
    body: list,
    site: str,
    effects: dict,
    causes: list[str],
    sink: DiagnosticSink,
    own: Any = (),
) -> None:
    """Replace ``start``/``end`` statements by calls, and ``in_force(E, ...)`` by
    ``effect__E__in_force(...)``, in place (unless the rules declare an ``in_force`` of their
    own: ``own``)."""
    for node in list(walk(body)):
        if isinstance(node, Call) and node.func == "in_force" and node.func not in own:
            first = node.args[0] if node.args else None
            if not isinstance(first, Name) or first.id not in effects:
                what = first.id if isinstance(first, Name) else "its first argument"
                sink.error(
                    "undefined",
                    f"in_force() names no effect: {what!r} is not declared under effects:",
                    (first or node).pos,
                    (did_you_mean(first.id, effects) if isinstance(first, Name) else None)
                    or "write in_force(EFFECT, args), EFFECT one of: "
                    + (", ".join(effects) or "none declared"),
                )
                continue
            if _arity(effects[first.id], len(node.args) - 1, node, f"in_force({first.id}, ", sink):
                node.func = f"effect__{first.id}__in_force"
                node.args = node.args[1:]
    _lower_stmts(body, site, effects, causes, sink)


def _lower_stmts(
    body: list, site: str, effects: dict, causes: list[str], sink: DiagnosticSink
) -> None:
    for i, stmt in enumerate(body):
        if isinstance(stmt, Lasting):
            body[i] = _call_of(stmt, site, effects, causes, sink)
            continue
        for name in stmt.__dataclass_fields__:
            value = getattr(stmt, name)
            if isinstance(value, list) and value and isinstance(value[0], Stmt):
                _lower_stmts(value, site, effects, causes, sink)
            elif isinstance(value, list):
                for item in value:  # an if's branches: (condition, body)
                    if isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], list):
                        _lower_stmts(item[1], site, effects, causes, sink)


def _call_of(
    stmt: Lasting, site: str, effects: dict, causes: list[str], sink: DiagnosticSink
) -> Stmt:
    effect = effects.get(stmt.name)
    if effect is None:
        sink.error(
            "undefined",
            f"{stmt.op} {stmt.name}(...): no effect {stmt.name!r} is declared",
            stmt.src.pos(stmt.name_off),
            did_you_mean(stmt.name, effects)
            or "declare it under effects: in rules.yaml (see docs/language.md, Lasting effects)",
        )
        return stmt
    if not _arity(effect, len(stmt.args), stmt, f"{stmt.op} {stmt.name}", sink):
        return stmt
    k = _cause(causes, site)
    call = Call(
        stmt.src,
        stmt.off,
        f"effect__{stmt.name}__{stmt.op}",
        [*stmt.args, Int(stmt.src, stmt.off, k)],
    )
    return ExprStmt(stmt.src, stmt.off, call)


def _arity(effect: ir.LastingEffect, n: int, node: Any, what: str, sink: DiagnosticSink) -> bool:
    want = 0 if effect.scope is None else 1
    if n == want:
        return True
    scope = (
        "the game (no argument)"
        if effect.scope is None
        else f"one {effect.scope[1]} ({effect.scope[0]})"
    )
    arg = "" if effect.scope is None else effect.scope[0]
    if what.endswith(", "):  # in_force(E, ...
        written = f"{what[:-2]}, {arg})" if arg else f"{what[:-2]})"
        what = "in_force"
    else:
        written = f"{what}({arg})"
    sink.error(
        "arity",
        f"{what}(...) gives {n} argument(s); effect {effect.name!r} is scoped to {scope}",
        node.pos,
        f"write {written}",
    )
    return False


def _step_names(game: ir.Game) -> list[str]:
    out = []
    for sec, pre in (("setup", "setup"), ("turn", "turn"), ("end_of_turn", "end")):
        out += [f"{sec}.{r.name[len(pre) + 2 :]}" for r in game.flow(sec)]
    return out


def _flow_step(game: ir.Game, target: str) -> ir.Routine | None:
    section, dot, step = target.rpartition(".")
    if not dot or section not in ("setup", "turn", "end_of_turn"):
        return None
    prefix = {"setup": "setup", "turn": "turn", "end_of_turn": "end"}[section]
    return next((r for r in game.flow(section) if r.name == f"{prefix}__{step}"), None)


def _weave_flow(
    b: Any, game: ir.Game, ends: dict[str, list[str]], causes: list[str], sink: DiagnosticSink
) -> None:
    """Each flow step runs its rules, then ends the effects that end with it, then checks
    every ``until``."""
    checked = [e for e in game.lasting if e.until is not None]
    if not ends and not checked:
        return
    checks = [
        f"effect__{e.name}__check({_cause(causes, f'until {e.until_text}')})" for e in checked
    ]
    if checked:
        _routine(
            game, CHECK, "procedure", [], ir.VOID, "\n".join(checks) + "\n", checked[0].origin, sink
        )
    for section, pre in (("setup", "setup"), ("turn", "turn"), ("end_of_turn", "end")):
        for routine in game.flow(section):
            inner = copy.copy(routine)
            inner.name = f"{routine.name}__lasting"
            inner.kind = "procedure"
            game.functions[inner.name] = inner
            step = f"{section}.{routine.name[len(pre) + 2 :]}"
            lines = [f"{inner.name}()"]
            for e in ends.get(routine.name, ()):
                lines.append(f"effect__{e}__end_all({_cause(causes, f'{step} ends')})")
            if checked:
                lines.append(f"{CHECK}()")
            src = Snippet(
                "\n".join(lines) + "\n", lambda off, p=routine.origin.pos: p, "the flow of play"
            )
            body = parse_into(src, sink)
            if body is not None:
                routine.body = body  # type: ignore[assignment]


def _weave_changes(
    game: ir.Game, effect: ir.LastingEffect, plan: Plan, sink: DiagnosticSink
) -> None:
    """Make the routines of what ``effect`` changes, and wrap the routines it changes."""
    for change in effect.changes:
        target = game.functions.get(change.target)
        want = "procedure" if change.kind == "replaces" else "function"
        returns = {"modifies": ir.INT, "forbids": ir.BOOL, "permits": ir.BOOL}.get(change.kind)
        if (
            target is None
            or "__" in change.target
            or target.kind != want
            or (returns is not None and target.returns != returns)
        ):
            known = [
                n
                for n, r in game.functions.items()
                if r.kind == want and "__" not in n and (returns is None or r.returns == returns)
            ]
            what = {"modifies": "a function that gives an int", "replaces": "a procedure"}.get(
                change.kind, "a function that gives a bool"
            )
            sink.error(
                "undefined",
                f"effect {effect.name!r} {change.kind} {change.target!r}, which is not {what}",
                change.pos,
                did_you_mean(change.target, known)
                or f"{change.kind} names {what}: " + (", ".join(known) or "rules.yaml has none"),
            )
            continue
        names = [p for p, _t in target.params]
        if effect.scope is not None and effect.scope[0] in names:
            sink.error(
                "duplicate-name",
                f"effect {effect.name!r}: its scope param {effect.scope[0]!r} is also a param "
                f"of {change.target!r}",
                change.pos,
                "rename the scope param: where: and by: see both",
            )
            continue
        pre = f"effect__{effect.name}__{change.kind}__{change.target}"
        params = ([effect.scope] if effect.scope else []) + list(target.params)
        origin = ir.Origin(change.pos, effect.origin.rules, "")
        if change.where is not None:
            w = change.where
            game.functions[pre + "__where"] = ir.Routine(
                pre + "__where", "function", params, ir.BOOL, [Return(w.src, w.off, w)], origin
            )
        if change.by is not None:
            game.functions[pre + "__by"] = ir.Routine(
                pre + "__by",
                "function",
                params,
                ir.INT,
                [Return(change.by.src, change.by.off, change.by)],
                origin,
            )
        if change.body is not None:
            game.functions[pre + "__with"] = ir.Routine(
                pre + "__with", "procedure", params, ir.VOID, change.body, origin
            )
        change.woven = True
    _plan_targets(game, effect, plan, sink)


#: what the effects do to each routine they change: name -> [(kind, routine or text)]
Plan = dict[str, list[tuple[str, str]]]


def _plan_targets(
    game: ir.Game, effect: ir.LastingEffect, plan: Plan, sink: DiagnosticSink
) -> None:
    """Move each routine ``effect`` changes to ``<name>__base`` (once), make the routine of
    each change, and note in ``plan`` how the routine's new body uses it."""
    for change in effect.changes:
        if not change.woven:
            continue
        name = change.target
        base = f"{name}__base"
        if base not in game.functions:
            original = game.functions[name]
            moved = copy.copy(original)
            moved.name = base
            game.functions[base] = moved
            plan[name] = []
        target = game.functions[base]
        args = ", ".join(p for p, _t in target.params)
        pre = f"effect__{effect.name}__{change.kind}__{name}"
        origin = ir.Origin(change.pos, effect.origin.rules, "")
        scoped = effect.scope is not None
        s = effect.scope[0] if scoped else ""
        field = f"{s}.{FIELD.format(effect.name)}" if scoped else FIELD.format(effect.name)
        both = f"{s}, {args}" if scoped and args else (s or args)
        where = f" and {pre}__where({both})" if change.where is not None else ""
        each = f"for {s} in {_every(game, effect)}:\n" if scoped else ""
        ind = "    " if scoped else ""
        if change.kind == "modifies":
            text = (
                "let lasting__total = 0\n"
                f"{each}{ind}if {field} > 0{where}:\n"
                f"{ind}    lasting__total += {pre}__by({both})\n"
                "return lasting__total\n"
            )
            _routine(game, pre, "function", list(target.params), ir.INT, text, origin, sink)
        elif change.kind in ("forbids", "permits"):
            if scoped:
                every = _every(game, effect)
                text = f"return count([{s} for {s} in {every} if {field} > 0{where}]) > 0\n"
            else:
                text = f"return {field} > 0{where}\n"
            _routine(game, pre, "function", list(target.params), ir.BOOL, text, origin, sink)
        else:
            text = (
                f"{each}{ind}if not lasting__done and {field} > 0{where}:\n"
                f"{ind}    lasting__done = true\n"
                f"{ind}    {pre}__with({both})\n"
            )
            plan[name].append(("with", text))
            continue
        plan[name].append((change.kind, pre))


def _rewrite(game: ir.Game, plan: Plan, sink: DiagnosticSink) -> None:
    """Give each changed routine its new body, from what every effect does to it."""
    for name, changes in plan.items():
        base = game.functions[f"{name}__base"]
        args = ", ".join(p for p, _t in base.params)
        if base.kind == "procedure":
            text = "let lasting__done = false\n" + "".join(t for _k, t in changes)
            text += f"if not lasting__done:\n    {name}__base({args})\n"
        elif base.returns == ir.INT:
            text = (
                f"return {name}__base({args})"
                + "".join(f" + {pre}({args})" for _k, pre in changes)
                + "\n"
            )
        else:
            permits = "".join(f" or {pre}({args})" for k, pre in changes if k == "permits")
            forbids = "".join(f" and not {pre}({args})" for k, pre in changes if k == "forbids")
            text = f"return ({name}__base({args}){permits}){forbids}\n"
        _routine(game, name, base.kind, list(base.params), base.returns, text, base.origin, sink)
