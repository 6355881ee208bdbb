"""Examples of play as data: a starting position, scripted decisions, expected outcomes.

An example (``rules/<game>/examples/*.yaml``) names a scenario and a seed, overrides parts of
the state once set-up is over, before turn 1 starts (``setup``: dotted paths such as
``p.blue.strength`` or ``e.army.orange_1.location``, values written with the rules' own ids),
then runs ``steps``: ``decide`` (a seat picks an option by id), ``refuse`` (an option that must
be refused), ``set`` (state values written where the script stands, say inside a set-up that
asks questions), ``dice`` (the values the next die rolls show) and ``expect`` (state values,
log lines present or absent, what one seat sees and does not see, the options offered, who
must decide, the result).  Failures are diagnostics at the step's position in the YAML file.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from . import ir
from .diagnostics import DiagnosticSink, Position
from .loader import Document, load_yaml
from .project import Project, as_project, compile_project
from .schema import SchemaStore


@dataclass
class ExampleResult:
    path: str
    title: str
    rules: tuple[str, ...]
    steps: int
    ok: bool
    #: where a failing example stopped: "step 3 of 5 (decide)", "set-up", "after the last step"
    failed_at: str = ""

    @property
    def summary(self) -> str:
        """What `rulecraft test` prints after the title: "(4 steps)", "(failed at step 3 of
        5: decide)"."""
        if self.ok:
            return f"({self.steps} steps)"
        return f"(failed at {self.failed_at})" if self.failed_at else "(failed before its steps)"


class _Fail(Exception):
    def __init__(self, message: str, pos: Position, hint: str | None = None):
        super().__init__(message)
        self.message = message
        self.pos = pos
        self.hint = hint
        self.at = ""  # where in the script (`ExampleResult.failed_at`)


#: the kinds of step of an example, as a failing one is named
STEP_KINDS = ("dice", "decide", "refuse", "set", "expect")


class Converter:
    """Converts between the rules' ids and the indices the engine keeps in its state.

    ``S`` is the live state by field name (``Game.state``); ``spec`` the scenario's compiled
    spec, whose ids number the players, cards and records as the engine does."""

    def __init__(self, game: ir.Game, S: Any, spec: Any):
        self.game = game
        self.S = S
        self.ids: dict[str, tuple[str, ...]] = spec.ids
        self.seats = list(spec.seats)
        self.card_ids = list(spec.ids.get("card", ()))

    def field(self, path: list[str]) -> tuple[dict[str, Any], str, ir.Field | None]:
        """The record holding a dotted path, the key inside it, and its declaration."""
        g, S = self.game, self.S
        head = path[0]
        if head == "g" and len(path) == 2:
            return S["g"], path[1], g.globals.get(path[1])
        if head == "p" and len(path) == 3:
            if path[1] not in self.seats:
                raise KeyError(f"unknown seat {path[1]!r} (seats: {', '.join(self.seats)})")
            return S["p"][self.seats.index(path[1])], path[2], g.player_fields.get(path[2])
        if head == "e" and len(path) == 4:
            et = g.entities.get(path[1])
            if et is None:
                raise KeyError(f"unknown entity type {path[1]!r}")
            ids = list(self.ids.get(path[1], ()))
            if path[2] not in ids:
                raise KeyError(f"unknown {path[1]} {path[2]!r} (known: {', '.join(ids)})")
            return S["e"][path[1]][ids.index(path[2])], path[3], et.member(path[3])
        if head == "turn" and len(path) == 1:
            return S, "turn", ir.Field("turn", ir.INT, g.origin)
        raise KeyError(
            f"cannot read {'.'.join(path)!r}: write g.FIELD, p.SEAT.FIELD, e.TYPE.ID.FIELD or turn"
        )

    def to_state(self, v: Any, t: ir.Type) -> Any:
        if v is None:
            return None
        if t.kind == "player":
            return self.seats.index(v)
        if t.kind == "card":
            return self.card_ids.index(v)
        if t.kind == "entity":
            return self.ids[t.name].index(v)
        if t.kind == "table":
            return self.ids["table"].index(v)
        if t.kind == "list":
            assert t.elem is not None
            return [self.to_state(x, t.elem) for x in v]
        return v

    def from_state(self, v: Any, t: ir.Type) -> Any:
        if v is None:
            return None
        if t.kind == "player":
            return self.seats[v]
        if t.kind == "card":
            return self.card_ids[v]
        if t.kind == "entity":
            return self.ids[t.name][v]
        if t.kind == "table":
            return self.ids["table"][v]
        if t.kind == "list":
            assert t.elem is not None
            return [self.from_state(x, t.elem) for x in v]
        return v

    def get(self, dotted: str) -> Any:
        rec, key, f = self.field(dotted.split("."))
        value = rec[key]
        return self.from_state(value, f.type) if f is not None else value

    def set(self, dotted: str, value: Any) -> None:
        rec, key, f = self.field(dotted.split("."))
        if f is None:
            raise KeyError(f"{dotted!r} is not a declared field")
        try:
            rec[key] = self.to_state(value, f.type)
        except ValueError:
            raise KeyError(f"{value!r} is not a valid value for {dotted!r} ({f.type})") from None


class Dice:
    """The die values a script fixed (``dice`` steps), and where it wrote each, so that a
    value the die cannot show, or one never rolled, is an error at that value."""

    def __init__(self, doc: Document, S: list[Any]) -> None:
        self.doc = doc
        self.S = S
        self.fixed: list[tuple[int, tuple]] = []  # (value, its path in the file), in order

    def fix(self, where: tuple, values: list[int]) -> None:
        from rulecraft.runtime.rng import fix_rolls

        fix_rolls(self.S, values)
        self.fixed += [(v, (*where, j)) for j, v in enumerate(values)]

    def refused(self, exc: Any) -> _Fail:
        """The failure for a fixed value its die could not show (``FixedRollError``)."""
        from rulecraft.runtime.rng import fixed_left

        # the value was taken from the fixed ones before it was refused
        value, at = self.fixed[len(self.fixed) - len(fixed_left(self.S)) - 1]
        where = f"the die rolled at {exc.origin}" if exc.origin else "the die rolled"
        return _Fail(
            f"{where} has {exc.sides} sides: it cannot show {value}",
            self.doc.pos(at),
            "the dice step fixes the next rolls in order, whatever die the rules roll",
        )

    def all_rolled(self, by: str) -> None:
        """Fail at the first fixed value not rolled yet (``by``: where the script stands)."""
        from rulecraft.runtime.rng import fixed_left

        left = fixed_left(self.S)
        if left:
            value, at = self.fixed[len(self.fixed) - len(left)]
            raise _Fail(
                f"the roll fixed as {value} was not made {by} (not rolled: {left})",
                self.doc.pos(at),
                "fix only the rolls the rules make before the next expect step; a roll made "
                "later needs its own dice step",
            )


def _same(got: Any, want: Any) -> bool:
    if isinstance(got, list) and isinstance(want, list):
        return sorted(map(str, got)) == sorted(map(str, want))
    return got == want


def run_example(doc: Document, game: ir.Game, spec: Any) -> int:
    """Run one example; returns the number of steps.  Raises ``_Fail`` at the first failure."""
    from rulecraft.runtime import Game
    from rulecraft.runtime.game import new_state
    from rulecraft.runtime.machine import GameError
    from rulecraft.runtime.rng import FixedRollError, unfix_rolls

    d = doc.data
    scenario = d["scenario"]
    if scenario not in spec.scenarios:
        raise _Fail(
            f"unknown scenario {scenario!r}",
            doc.pos(("scenario",)),
            "scenarios: " + ", ".join(spec.scenarios),
        )
    if scenario != spec.scenario:
        from rulecraft.runtime.registry import load_spec

        spec = load_spec(spec.game, scenario)
    readings = d.get("constants") or {}
    if readings:
        try:
            spec = spec.with_constants(**readings)
        except GameError as exc:
            raise _Fail(str(exc), doc.key_pos(("constants",))) from None
    seed = int(d.get("seed", 0))
    overrides = d.get("setup") or {}
    # `setup` is written once set-up is over, before turn 1 starts (after the set-up's own
    # questions, which the first steps answer). Its paths and values are checked beforehand,
    # on the state before set-up, so that a mistake points at its key.
    check = Converter(game, Game(spec, new_state(spec, seed)).state, spec)
    for key, value in overrides.items():
        if key == "turn" and (type(value) is not int or value < 1):
            raise _Fail(f"turn is a number from 1, not {value!r}", doc.pos(("setup", key)))
        try:
            check.set(key, value)
        except KeyError as exc:
            raise _Fail(str(exc.args[0]), doc.key_pos(("setup", key))) from None
    written = [not overrides]
    if overrides:

        def write_setup(S: list[Any]) -> None:
            at = Converter(game, Game(spec, S).state, spec)
            for key, value in overrides.items():
                # `turn: n` names the turn about to start (turns count up as they start)
                at.set(key, value - 1 if key == "turn" else value)
            written[0] = True

        spec = spec.with_after_setup(write_setup)
    # The game is set up (run to its first decision) at the first step that is not `dice`:
    # dice steps at the start of the script fix the rolls of set-up too.
    g = Game(spec, new_state(spec, seed))
    conv = Converter(game, g.state, g.spec)
    dice = Dice(doc, g.raw)
    steps = d.get("steps") or []
    started = False
    at = "set-up"
    try:
        for i, step in enumerate(steps):
            kind = next((k for k in STEP_KINDS if k in step), "")
            at = f"step {i + 1} of {len(steps)}" + (f": {kind}" if kind else "")
            where = ("steps", i)
            if "dice" in step:
                if not _rolls_can_be_fixed(spec):
                    raise _Fail(
                        f"the engine of {spec.game!r} was generated before rolls could be fixed",
                        doc.key_pos((*where, "dice")),
                        "run `rulecraft compile`",
                    )
                dice.fix((*where, "dice"), step["dice"])
                continue
            if not started:
                _set_up(doc, g)
                started = True
            _step(doc, where, step, g, conv, dice)
        at = "set-up" if not started else "the end of the example"
        if not started:
            _set_up(doc, g)
        at = "the end of the example"
        dice.all_rolled("by the end of the example")
    except FixedRollError as exc:
        fail = dice.refused(exc)
        fail.at = at
        raise fail from None
    except _Fail as fail:
        fail.at = fail.at or at
        raise
    finally:
        unfix_rolls(g.raw)
    if not written[0]:
        fail = _Fail(
            "`setup` was never applied: set-up was not over when the steps ended",
            doc.key_pos(("setup",)),
            "answer the set-up's questions with `decide` steps (`setup` is written when set-up is"
            " over), or change the state where you are with a `set` step",
        )
        fail.at = "the end of the example"
        raise fail
    return len(steps)


def _rolls_can_be_fixed(spec: Any) -> bool:
    """Whether the scenario's engine rolls through ``rulecraft.runtime.rng.FIXED_ROLLS`` (an
    engine generated before rolls could be fixed ignores them)."""
    import sys

    from rulecraft.runtime.rng import FIXED_ROLLS

    module = sys.modules.get(type(spec.engine).__mro__[-2].__module__)
    return getattr(module, "_FIXED_ROLLS", None) is FIXED_ROLLS


def _set_up(doc: Document, g: Any) -> None:
    """Run the new game to its first decision, as ``Game.new`` does."""
    from rulecraft.runtime.machine import GameError, run
    from rulecraft.runtime.rng import FixedRollError

    try:
        run(g.spec, g.raw, None)
    except FixedRollError:
        raise
    except GameError as exc:
        raise _Fail(f"the game cannot be set up: {exc}", doc.pos(("scenario",))) from None


def _asked(g: Any, conv: Converter, most: int = 8) -> str:
    """What is asked now, to write the step the script is missing: each pending decision's
    seat, prompt and first option ids."""
    out = []
    for d in g.pending():
        ids = [o.id for o in d.options[:most]]
        more = f", ... ({len(d.options)} in all)" if len(d.options) > most else ""
        out.append(f"{conv.seats[d.player]} is asked {d.prompt!r}: {', '.join(ids)}{more}")
    return "; ".join(out) or "nothing is asked: the game is over"


def _step(
    doc: Document, where: tuple, step: dict[str, Any], g: Any, conv: Converter, dice: Dice
) -> None:
    """One step of the script other than ``dice``."""
    from rulecraft.runtime.machine import GameError
    from rulecraft.runtime.rng import FixedRollError

    for kind in ("decide", "refuse"):
        if kind not in step:
            continue
        dec = step[kind]
        seat = dec["player"]
        if seat not in conv.seats:
            raise _Fail(f"unknown seat {seat!r}", doc.pos((*where, kind, "player")))
        try:
            g.apply(conv.seats.index(seat), dec["option"])
        except FixedRollError:
            raise
        except GameError as exc:
            if kind == "decide":
                raise _Fail(str(exc), doc.pos((*where, kind, "option")), _asked(g, conv)) from None
            if dec["reason"] not in str(exc):
                raise _Fail(
                    f"{dec['option']!r} is refused, but with {str(exc)!r}",
                    doc.pos((*where, kind, "reason")),
                ) from None
        else:
            if kind == "refuse":
                raise _Fail(
                    f"{dec['option']!r} was accepted, expected it refused",
                    doc.pos((*where, kind, "option")),
                )
    if "set" in step:
        for key, value in step["set"].items():
            try:
                conv.set(key, value)
            except KeyError as exc:
                raise _Fail(str(exc.args[0]), doc.key_pos((*where, "set", key))) from None
        # The pending decision was offered before the change: ask it again.
        g.reask()
    if "expect" in step:
        dice.all_rolled(f"by the expect step of line {doc.pos(where).line}")
        expect(doc, (*where, "expect"), step["expect"], g, conv)


def expect(doc: Document, where: tuple, exp: dict[str, Any], g: Any, conv: Converter) -> None:
    for key, want in (exp.get("state") or {}).items():
        try:
            got = conv.get(key)
        except KeyError as exc:
            raise _Fail(str(exc.args[0]), doc.key_pos((*where, "state", key))) from None
        if not _same(got, want):
            raise _Fail(f"{key} is {got!r}, expected {want!r}", doc.pos((*where, "state", key)))
    # `log`: the public log (what a spectator reads); `log_of`: what one seat reads
    checks: list[tuple[tuple, list[str], list[str]]] = [
        ((*where, "log"), exp.get("log") or [], g.log_for(None))
    ]
    for seat, lines in (exp.get("log_of") or {}).items():
        if seat not in conv.seats:
            raise _Fail(f"unknown seat {seat!r}", doc.key_pos((*where, "log_of", seat)))
        checks.append(((*where, "log_of", seat), lines, g.log_for(conv.seats.index(seat))))
    for at, wanted, log in checks:
        start = 0
        for j, text in enumerate(wanted):
            hit = next((k for k in range(start, len(log)) if text in log[k]), None)
            if hit is None:
                tail = "\n".join(log[-8:])
                raise _Fail(
                    f"no log line contains {text!r} (in order)",
                    doc.pos((*at, j)),
                    f"the last log lines:\n{tail}",
                )
            start = hit + 1
    # `log_absent`, `log_absent_of`: texts no line of the whole log contains
    absent: list[tuple[tuple, list[str], list[str], str]] = [
        ((*where, "log_absent"), exp.get("log_absent") or [], g.log_for(None), "the public log")
    ]
    for seat, lines in (exp.get("log_absent_of") or {}).items():
        if seat not in conv.seats:
            raise _Fail(f"unknown seat {seat!r}", doc.key_pos((*where, "log_absent_of", seat)))
        log = g.log_for(conv.seats.index(seat))
        absent.append(((*where, "log_absent_of", seat), lines, log, f"{seat}'s log"))
    for at, unwanted, log, whose in absent:
        for j, text in enumerate(unwanted):
            line = next((x for x in log if text in x), None)
            if line is not None:
                raise _Fail(
                    f"{whose} has a line containing {text!r}, expected none: {line!r}",
                    doc.pos((*at, j)),
                )
    if "view" in exp:
        seen(doc, (*where, "view"), exp["view"], g, conv)
    if "pending" in exp:
        got = sorted(conv.seats[d.player] for d in g.pending())
        if got != sorted(exp["pending"]):
            raise _Fail(
                f"pending decisions are for {got}, expected {exp['pending']}",
                doc.pos((*where, "pending")),
            )
    if "options" in exp:
        o = exp["options"]
        seat = o["player"]
        if seat not in conv.seats:
            raise _Fail(f"unknown seat {seat!r}", doc.pos((*where, "options", "player")))
        ids = [opt.id for opt in g.legal(conv.seats.index(seat))]
        if sorted(ids) != sorted(o["ids"]):
            raise _Fail(
                f"{seat} is offered {ids}, expected {o['ids']}", doc.pos((*where, "options", "ids"))
            )
    if "result" in exp:
        r = g.result
        want = exp["result"]
        if r is None:
            raise _Fail("the game has not ended", doc.pos((*where, "result")))
        winners = sorted(conv.seats[w] for w in r["winners"])
        if winners != sorted(want.get("winners", winners)) or bool(r["tie"]) != bool(
            want.get("tie", r["tie"])
        ):
            raise _Fail(
                f"the result is {winners} (tie: {r['tie']}), expected {want}",
                doc.pos((*where, "result")),
            )


def seen(doc: Document, where: tuple, want: dict[str, Any], g: Any, conv: Converter) -> None:
    """``expect: {view: {player, state, hidden}}``: what one seat sees, through ``Game.view``
    (the one place visibility is decided): the values it must see, and the paths it must
    see only as hidden."""
    from rulecraft.runtime.view import is_hidden

    seat = want["player"]
    if seat not in conv.seats:
        raise _Fail(f"unknown seat {seat!r}", doc.pos((*where, "player")))
    sight = Converter(conv.game, g.view(conv.seats.index(seat)), g.spec)

    def value(key: str, at: tuple) -> tuple[Any, ir.Field | None]:
        try:
            rec, name, f = sight.field(key.split("."))
        except KeyError as exc:
            raise _Fail(str(exc.args[0]), at) from None
        if name not in rec:
            raise _Fail(f"{key!r} is not a declared field", at)
        return rec[name], f

    for key, expected in (want.get("state") or {}).items():
        v, f = value(key, doc.key_pos((*where, "state", key)))
        if is_hidden(v):
            raise _Fail(
                f"{seat} does not see {key} (it is hidden), expected {expected!r}",
                doc.pos((*where, "state", key)),
            )
        got = sight.from_state(v, f.type) if f is not None else v
        if not _same(got, expected):
            raise _Fail(
                f"{seat} sees {key} as {got!r}, expected {expected!r}",
                doc.pos((*where, "state", key)),
            )
    for j, key in enumerate(want.get("hidden") or []):
        v, f = value(key, doc.pos((*where, "hidden", j)))
        if not is_hidden(v):
            got = sight.from_state(v, f.type) if f is not None else v
            raise _Fail(
                f"{seat} sees {key} as {got!r}, expected it hidden",
                doc.pos((*where, "hidden", j)),
            )


def example_files(root: Path | Project, only: list[str] | None = None) -> list[Path]:
    if only:
        return [Path(p).resolve() for p in only]
    return sorted(as_project(root).rules.glob("*/examples/*.yaml"))


def run_examples(
    root: Path | Project, files: list[Path], sink: DiagnosticSink
) -> list[ExampleResult]:
    """Run the example files; failures become diagnostics in ``sink``."""
    from rulecraft.runtime import load_spec
    from rulecraft.runtime.machine import GameError

    project = as_project(root)
    root, rules_dir = project.root, project.rules
    schemas = SchemaStore.default()
    results = []
    compiled: dict[str, dict[str, ir.Game]] = {}
    for path in files:
        display = path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)
        doc = load_yaml(path, display, sink)
        if doc is None or not schemas.validate(doc, "example", sink):
            continue
        d = doc.data
        title = str(d.get("title", d["example"]))
        rules = tuple(d.get("rules") or ())
        # `scenario: game/scenario` names the game; the short form keeps working inside
        # rules/<game>/examples/
        game_id, slash, sid = str(d["scenario"]).rpartition("/")
        if not slash:
            game_id = path.parent.parent.name
            if path.parent.name != "examples" or not (rules_dir / game_id).is_dir():
                sink.error(
                    "example",
                    f"example {display!r} is outside rules/<game>/examples/: its scenario must "
                    "name the game",
                    doc.pos(("scenario",)),
                    f"write scenario: <game>/{sid}",
                )
                results.append(ExampleResult(display, title, rules, 0, False))
                continue
        d["scenario"] = sid
        if game_id not in compiled:
            if not (rules_dir / game_id).is_dir():
                sink.error("example", f"unknown game {game_id!r}", doc.pos(("scenario",)))
                results.append(ExampleResult(display, title, rules, 0, False))
                continue
            compiled[game_id] = compile_project(project, sink, [game_id], generate=False).games
        key = f"{game_id}/{sid}"
        try:
            if key not in compiled[game_id]:
                known = ", ".join(sorted(compiled[game_id])) or "none (the rules have errors)"
                raise _Fail(f"unknown scenario {key!r}", doc.pos(("scenario",)), f"known: {known}")
            try:
                spec = load_spec(game_id, d["scenario"])
            except GameError as exc:
                raise _Fail(str(exc), doc.pos(("scenario",)), "run `rulecraft compile`") from None
            n = run_example(doc, compiled[game_id][key], spec)
            results.append(ExampleResult(display, title, rules, n, True))
        except _Fail as f:
            sink.error("example", f.message, f.pos, f.hint)
            results.append(ExampleResult(display, title, rules, 0, False, f.at))
    return results
