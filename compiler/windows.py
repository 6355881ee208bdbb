"""Interrupt windows: the `windows:` section of rules.yaml, lowered to routines and decisions.

```yaml
windows:
  reaction:
    title: Reaction
    params: {actor: player}             # what the window knows when it opens
    when: reactions_allowed             # it opens only while this holds (optional)
    ask: "[q for q in order if q != actor]"   # who is asked, in this order
    reverse: true                       # ... in reverse (reverse order of play)
    item: card                          # what a player acts with: `x` (else: yes or no)
    options: "[c for c in p.hand if c.kind == \"reaction\"]"   # what p may act with now
    prompt: "React to {actor}'s action?"
    pass: Pass
    act: |                              # what acting does (p acts with x)
        discard(p, x)
    closes: first_act                   # or all_pass (default): until all pass in succession
    rounds: 3                           # at most 3 rounds of asking (optional)
    nesting: 2                          # an act may open it once more inside (default 1)
    opens:                              # where the flow opens it, besides explicit calls
    - after: play_action                # a procedure: its params of the same names are passed
    - before: turn.score                # a flow step: the window takes no params
  talks:                                # a negotiation window: the players of `ask` trade
    negotiate: true                     # (`negotiate(seats, rounds)` of `negotiation:`)
    ask: initiative
    rounds: step_rounds                 # required: at most this many rounds of offers
    when: talks_at_every_step
    opens:
    - before: turn.gold
```

Nothing new reaches the runtime: a window ``w`` becomes the procedure ``w(params)`` written in
the effect language (``WINDOW`` below), calling functions made from the declaration
(``window__w__ask``, ``__order``, ``__start``, ``__opens``, ``__options`` or ``__may``,
``__rounds``) and the procedure ``window__w__act``; a player acts or passes through
``choose_optional`` (``choose_yes_no`` without an item), so views, saves, forms and bots
treat it like any decision. How many openings of a window are in progress is kept in the
internal global ``window__w__depth``, which bounds reopening (``nesting``). Openings before
or after a procedure become hooks; before or after a flow step, the step's body moves into
the procedure ``<step>__rules``.
"""

from __future__ import annotations

import copy
from typing import Any

from . import ir
from .diagnostics import DiagnosticSink, did_you_mean
from .effects import Bool, Call, ExprStmt, Return, Snippet, parse_into

__all__ = ["add_windows", "weave_windows"]

#: one opening of window __W__: ask the players in order until the window closes
WINDOW = """\
if window____W____depth < __NESTING__ and __OPENS__:
    window____W____depth += 1
    let w_asked = window____W____ask(__ARGS__)
    let w_most = __ROUNDS__
    let w_passes = 0
    let w_round = 0
    let w_open = true
    while w_open and w_passes < count(w_asked) and (w_most < 0 or w_round < w_most):
        w_round += 1
        for p in w_asked:
            if w_open and w_passes < count(w_asked):
__ASK__
    window____W____depth -= 1
"""

#: one opening of negotiation window __W__: the players asked trade (`negotiation:`)
NEGOTIATE = """\
if window____W____depth < __NESTING__ and __OPENS__:
    window____W____depth += 1
    negotiate(window____W____ask(__ARGS__), __ROUNDS__)
    window____W____depth -= 1
"""

#: asking one player of a window with an item: act with one of the options, or pass
ASK_ITEM = """\
let w_options = window____W____options(__ARGS_P__)
if count(w_options) == 0:
    w_passes += 1
else:
    let x = choose_optional(p, w_options, __PROMPT__, __PASS__)
    if x == none:
        w_passes += 1
    else:
        __ACTED__
        window____W____act(__ARGS_P__, x)
"""

#: asking one player of a yes-or-no window
ASK_YES_NO = """\
if not window____W____may(__ARGS_P__):
    w_passes += 1
else:
    let w_yes = choose_yes_no(p, __PROMPT__)
    if not w_yes:
        w_passes += 1
    else:
        __ACTED__
        window____W____act(__ARGS_P__)
"""

#: the players asked when `start_after` or `reverse` reorders `ask`, in the effect language:
#: first the players after the start (then those before it, the start itself last), then the
#: reversal
ORDER = """\
let w_order = __ASK__
__START__
__REVERSE__
return w_order
"""
START = """\
let w_start = __START__
let w_after = []
let w_before = []
let w_seen = false
for w_q in w_order:
    if w_seen:
        w_after = w_after + [w_q]
    else:
        w_before = w_before + [w_q]
    if w_q == w_start:
        w_seen = true
w_order = w_after + w_before
"""
REVERSE = """\
let w_back = []
for w_q in w_order:
    w_back = [w_q] + w_back
w_order = w_back
"""

RESERVED = ("p", "x")


def _literal(text: str) -> str | None:
    """``text`` as a string literal of the effect language, or None if it cannot be one."""
    if "\n" in text:
        return None
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def add_windows(b: Any, game: ir.Game, sink: DiagnosticSink) -> None:
    """Add the routines and fields of `windows:` in rules.yaml to ``game``; remember where the
    flow opens them (``game.window_opens``, woven in by `weave_windows` per scenario)."""
    doc = b.doc("rules.yaml")
    if doc is None or not isinstance(doc.data.get("windows"), dict):
        return
    for name, spec in doc.data["windows"].items():
        _window(b, game, doc, name, spec, sink)


def _window(b: Any, game: ir.Game, doc: Any, name: str, spec: dict, sink: DiagnosticSink) -> None:
    path = ("windows", name)
    pos = doc.key_pos(path)
    origin = b.origin(doc, path, spec)
    here = Snippet(name, lambda off, p=pos: p, f"window {name!r}")
    if game.routine(name) is not None:
        sink.error(
            "duplicate-name",
            f"window {name!r} has the name of a routine already declared",
            pos,
            "the window is a procedure of its own name: rename the window or the routine",
        )
        return
    params = b._params(game, doc, path, spec)
    for p, _t in params:
        if p in RESERVED or p.startswith("w_"):
            sink.error(
                "duplicate-name",
                f"window {name!r}: param {p!r} is a name the window uses itself",
                doc.key_pos((*path, "params", p)),
                "rename it: `p` is the player asked, `x` what they act with, w_... are the "
                "window's own",
            )
            return
    who = [("p", ir.PLAYER)]
    prefix = f"window__{name}__"

    def function(part: str, args: list, returns: ir.Type, body: list) -> None:
        game.functions[prefix + part] = ir.Routine(
            prefix + part, "function", list(args), returns, body, origin
        )

    def expr(key: str) -> Any:
        return b.expression(doc, (*path, key), f"{key} of window {name!r}")

    ask = expr("ask")
    if ask is None:
        return
    names = [p for p, _t in params]
    if spec.get("reverse", False) or "start_after" in spec:
        args = ", ".join(names)
        function("order", params, ir.list_of(ir.PLAYER), [Return(here, 0, ask)])
        start = ""
        if "start_after" in spec:
            first = expr("start_after")
            if first is None:
                return
            function("start", params, ir.PLAYER, [Return(here, 0, first)])
            start = START.replace("__START__", f"{prefix}start({args})")
        text = (
            ORDER.replace("__ASK__", f"{prefix}order({args})")
            .replace("__START__\n", start)
            .replace("__REVERSE__\n", REVERSE if spec.get("reverse", False) else "")
        )
        body = parse_into(Snippet(text, lambda off, p=pos: p, f"window {name!r}"), sink)
        if body is None:
            return
        function("ask", params, ir.list_of(ir.PLAYER), body)  # type: ignore[arg-type]
    else:
        function("ask", params, ir.list_of(ir.PLAYER), [Return(here, 0, ask)])
    opens = "true"
    if "when" in spec:
        when = expr("when")
        if when is None:
            return
        function("opens", params, ir.BOOL, [Return(here, 0, when)])
        opens = f"{prefix}opens(__ARGS__)"
    rounds = "-1"
    if "rounds" in spec:
        most = expr("rounds")
        if most is None:
            return
        function("rounds", params, ir.INT, [Return(here, 0, most)])
        rounds = f"{prefix}rounds(__ARGS__)"
    if spec.get("negotiate", False):
        text = _negotiation_window(game, doc, path, name, spec, rounds, opens, sink)
        if text is None:
            return
        _finish(b, game, doc, path, name, spec, params, origin, text, sink)
        return
    act = b.program(doc, (*path, "act"), f"act of window {name!r}")
    if act is None:
        return
    prompt = _literal(str(spec["prompt"]))
    passing = _literal(str(spec.get("pass", "Pass")))
    if prompt is None or passing is None:
        key = "prompt" if prompt is None else "pass"
        sink.error(
            "schema",
            f"window {name!r}: the {key} may not hold a line break",
            doc.pos((*path, key)),
            "write it on one line",
        )
        return
    if "item" in spec:
        if "options" not in spec:
            sink.error(
                "schema",
                f"window {name!r} acts with an item but does not say which",
                doc.key_pos((*path, "item")),
                "add options: <a list of what p may act with now>",
            )
            return
        t = b.type_of(game, spec["item"], doc, (*path, "item"))
        options = expr("options")
        if options is None:
            return
        function("options", [*params, *who], ir.list_of(t), [Return(here, 0, options)])
        acts = [*params, *who, ("x", t)]
        asking = ASK_ITEM.replace("__PASS__", passing)
    else:
        if "options" in spec:
            sink.error(
                "schema",
                f"window {name!r} has options but no item type",
                doc.key_pos((*path, "options")),
                "add item: <the type of the options>, or use may: for a yes-or-no window",
            )
            return
        may = expr("may") if "may" in spec else None
        if "may" in spec and may is None:
            return
        truth = may if may is not None else Bool(here, 0, True)
        function("may", [*params, *who], ir.BOOL, [Return(here, 0, truth)])
        acts = [*params, *who]
        asking = ASK_YES_NO
    game.functions[prefix + "act"] = ir.Routine(
        prefix + "act", "procedure", acts, ir.VOID, act, origin
    )
    acted = "w_open = false" if spec.get("closes") == "first_act" else "w_passes = 0"
    ind = " " * 16
    asking = "".join(ind + ln + "\n" for ln in asking.rstrip("\n").split("\n"))
    text = (
        WINDOW.replace("__ASK__\n", asking)
        .replace("__OPENS__", opens)
        .replace("__ROUNDS__", rounds)
        .replace("__NESTING__", str(int(spec.get("nesting", 1))))
        .replace("__PROMPT__", prompt)
        .replace("__ACTED__", acted)
        .replace("__ARGS_P__", ", ".join([*names, "p"]))
        .replace("__ARGS__", ", ".join(names))
        .replace("__W__", name)
    )
    _finish(b, game, doc, path, name, spec, params, origin, text, sink)


def _negotiation_window(
    game: ir.Game,
    doc: Any,
    path: tuple,
    name: str,
    spec: dict,
    rounds: str,
    opens: str,
    sink: DiagnosticSink,
) -> str | None:
    """The text of a window with `negotiate: true` (its players trade), or None (an error)."""
    extra = [k for k in ("item", "options", "may", "prompt", "pass", "act", "closes") if k in spec]
    if extra:
        sink.error(
            "schema",
            f"window {name!r} is a negotiation and cannot have {extra[0]!r}",
            doc.key_pos((*path, extra[0])),
            "a negotiation window trades the goods of `negotiation:`: drop it, or drop "
            "negotiate: true",
        )
        return None
    if "rounds" not in spec:
        sink.error(
            "schema",
            f"window {name!r} is a negotiation but does not bound its rounds",
            doc.key_pos((*path, "negotiate")),
            "add rounds: <an int over the params> (offers may go on forever otherwise)",
        )
        return None
    if "negotiate" not in game.functions:
        sink.error(
            "negotiation",
            f"window {name!r} is a negotiation, and this game declares no goods",
            doc.key_pos((*path, "negotiate")),
            "declare negotiation: {goods: ...} in rules.yaml",
        )
        return None
    return (
        NEGOTIATE.replace("__OPENS__", opens)
        .replace("__ROUNDS__", rounds)
        .replace("__NESTING__", str(int(spec.get("nesting", 1))))
    )


def _finish(
    b: Any,
    game: ir.Game,
    doc: Any,
    path: tuple,
    name: str,
    spec: dict,
    params: list,
    origin: ir.Origin,
    text: str,
    sink: DiagnosticSink,
) -> None:
    """The window's procedure from ``text``, its depth and its openings."""
    pos = doc.key_pos(path)
    prefix = f"window__{name}__"
    text = text.replace("__ARGS__", ", ".join(p for p, _t in params)).replace("__W__", name)
    body = parse_into(Snippet(text, lambda off, p=pos: p, f"window {name!r}"), sink)
    if body is None:
        return
    depth = f"{prefix}depth"
    game.globals[depth] = ir.Field(
        depth,
        ir.INT,
        ir.Origin(pos, (), f"how many openings of window {name} are in progress"),
        min=0,
        title=f"{spec.get('title') or name} openings in progress",
        internal=True,
    )
    game.functions[name] = ir.Routine(name, "procedure", params, ir.VOID, body, origin)  # type: ignore[arg-type]
    for i, opening in enumerate(spec.get("opens") or ()):
        for when, target in opening.items():
            game.window_opens.append((name, when, str(target), doc.pos((*path, "opens", i, when))))


def weave_windows(b: Any, game: ir.Game) -> None:
    """Open each window where `opens:` says: hooks on procedures, calls around flow steps."""
    steps: dict[str, list[tuple[str, str]]] = {}
    for window, when, target, pos in game.window_opens:
        proc = game.functions[window]
        names = [p for p, _t in proc.params]
        section, dot, step = target.rpartition(".")
        if not dot and target in game.functions and game.functions[target].kind == "procedure":
            tparams = dict(game.functions[target].params)
            missing = [p for p in names if p not in tparams]
            if missing:
                b.sink.error(
                    "undefined",
                    f"window {window!r} opens {when} procedure {target!r}, which has no "
                    f"param {missing[0]!r}",
                    pos,
                    f"the window takes its params from the procedure's: "
                    f"{', '.join(tparams) or 'it has none'}",
                )
                continue
            src = Snippet(f"{window}({', '.join(names)})\n", lambda off, p=pos: p, "opens")
            body = parse_into(src, b.sink)
            if body is None:
                continue
            key = f"window__{window}__{when}__{target}"
            game.hooks[key] = ir.Hook(key, when, target, body, ir.Origin(pos, (), ""))  # type: ignore[arg-type]
            continue
        routine = None
        if dot and section in ("setup", "turn", "end_of_turn"):
            prefix = {"setup": "setup", "turn": "turn", "end_of_turn": "end"}[section]
            routine = next((r for r in game.flow(section) if r.name == f"{prefix}__{step}"), None)
        if routine is None:
            known = [
                n for n, r in game.functions.items() if r.kind == "procedure" and "__" not in n
            ]
            for sec, pre in (("setup", "setup"), ("turn", "turn"), ("end_of_turn", "end")):
                known += [f"{sec}.{r.name[len(pre) + 2 :]}" for r in game.flow(sec)]
            b.sink.error(
                "undefined",
                f"window {window!r} opens {when} {target!r}, which is neither a procedure nor "
                "a flow step",
                pos,
                did_you_mean(target, known) or "a procedure's name, or turn.<step>",
            )
            continue
        if names:
            b.sink.error(
                "undefined",
                f"window {window!r} opens {when} flow step {target!r} but takes params "
                f"({', '.join(names)})",
                pos,
                "a flow step passes nothing: open it from a procedure, or call it in the step",
            )
            continue
        steps.setdefault(routine.name, []).append((when, window))
    for section in ("setup", "turn", "end_of_turn"):
        for routine in game.flow(section):
            if routine.name not in steps:
                continue
            inner = copy.copy(routine)
            inner.name = f"{routine.name}__rules"
            inner.kind = "procedure"
            game.functions[inner.name] = inner
            wins = steps[routine.name]
            lines = [f"{w}()" for when, w in wins if when == "before"]
            lines.append(f"{inner.name}()")
            lines += [f"{w}()" for when, w in wins if when == "after"]
            src = Snippet(
                "\n".join(lines) + "\n", lambda off, p=routine.origin.pos: p, "the flow of play"
            )
            body = parse_into(src, b.sink)
            if body is None:
                continue
            assert all(isinstance(s, ExprStmt) and isinstance(s.expr, Call) for s in body)
            routine.body = body  # type: ignore[assignment]
