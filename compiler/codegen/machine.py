"""The machine form of a routine that may wait (``r_<name>(S, F, v, ...)``): straight-line
Python between resume points, split into the arms of a ``pc`` switch only where a construct
holds a resume point; frames keep the locals still live at each resume point."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .. import ir
from ..builtins import BUILTINS
from ..effects import (
    Assign,
    AtOnce,
    Break,
    Call,
    ExprStmt,
    For,
    If,
    Let,
    Return,
    Simultaneously,
    Stmt,
    Str,
    While,
    filter_text,
)
from .analysis import method_stem, secrecy_of, stops
from .class_tables import ClassTables
from .data import ScenarioData
from .exprs import CodegenError
from .forms import SAME_PLAYER, PlainForms, decision_of
from .indexed import loop_source
from .pytext import as_tuple, doc_string, mark_unused, only_markers, pack, zero


class Jump:
    """A jump to an arm, rendered once arm indices are known."""

    def __init__(self, target: Any, tail: bool) -> None:
        self.target = target
        self.tail = tail


@dataclass
class Arm:
    index: int
    lines: list[tuple[int, Any]] = field(default_factory=list)  # (indent, text | Jump)
    closed: bool = False


class MachineForm(PlainForms):
    """The machine form (``R``) on top of the plain forms."""

    def __init__(self, sd: ScenarioData, tables: ClassTables, r: ir.Routine, form: str) -> None:
        super().__init__(sd, tables, r, form)
        self.arms: list[Arm] = []
        self.cur: Arm | None = None
        self.tokens: dict[str, Any] = {}
        self.frame_order: list[str] = []
        self.entries: list[tuple[Any, Any]] = []  # (resume arm, ask arm or None)
        self.break_tokens: dict[str, Any] = {}
        self.live: list[set[str]] = []
        self.skipped: set[int] = set()  # arms that only jump (see thread_jumps)
        #: the methods that compute secret locals again for a frame (name -> code; see
        #: note_secrets)
        self.recompute_defs: dict[str, str] = {}

    def late(self, fn: Any) -> str:
        """A token in a line, replaced by ``fn()`` once the routine is compiled."""
        token = f"\x00{len(self.tokens)}\x00"
        self.tokens[token] = fn
        return token

    def arm_index(self, ref: Arm | ArmRef) -> str:
        return self.late(lambda: str(ref.index if isinstance(ref, Arm) else ref.get().index))

    def frame(self, resume: Arm | ArmRef, ask: Arm | None = None) -> str:
        """Code of this routine's frame, resumed at ``resume`` (for a decision asked in arm
        ``ask``, also re-entered there to ask again): the locals still needed from there."""
        i = len(self.entries)
        self.entries.append((resume, ask))

        def text() -> str:
            target, ask_arm = self.entries[i]  # after jump threading
            layout = self.layout_of(target, ask_arm)
            self.note_secrets(_index(target), layout)
            return "(" + ", ".join([str(self.rid), str(_index(target)), *layout]) + ")"

        return self.late(text)

    def note_secrets(self, pc: int, layout: list[str]) -> None:
        """Record which slots of the frame resumed at ``pc`` hold secret locals, each with
        the stand-in a bot's imagined world puts there and, for a local defined by a pure
        expression of the frame's other (shown) locals, a method that computes it again
        from that world's state."""
        secret = secrecy_of(self.sd).locals.get(self.r.name, {})
        found = {}
        hidden = {py for py in layout if self.scope.rule_name.get(py) in secret}
        for k, py in enumerate(layout):
            if py not in hidden:
                continue
            found[k] = (
                k,
                secret[self.scope.rule_name[py]],
                self.recompute_method(pc, k, py, layout, hidden),
            )
        if found:
            key = (self.rid, pc)
            for row in self.tables.secrets.get(key, ()):
                found.setdefault(row[0], row)
            self.tables.secrets[key] = tuple(found[k] for k in sorted(found))

    def recompute_method(
        self, pc: int, k: int, py: str, layout: list[str], hidden: set[str]
    ) -> str | None:
        code = self.recompute.get(py)
        if code is None:
            return None
        declared = set(self.scope.declared)
        used = {n for n in _NAMES.findall(code) if n in declared}
        if not used <= set(layout) - hidden:
            return None  # it reads a local the frame does not keep, or one that is hidden
        name = f"z_{method_stem(self.r)}__{pc}_{k}"
        lines = [
            f"def {name}(self, S: list[Any], F: Any) -> Any:",
            f'    "Local {self.scope.rule_name[py]!r} of a frame, '
            "computed again in a bot's world.\"",
        ]
        for j, other in enumerate(layout):
            if other in used:
                lines.append(f"    {other} = F[{j + 2}]")
        lines.append(f"    return {code}")
        self.recompute_defs[name] = "\n".join(lines)
        return name

    def layout_of(self, resume: Arm | ArmRef, ask: Arm | None) -> list[str]:
        live = self.live[_index(resume)]
        if ask is not None:
            live = live | self.live[ask.index]
        return [n for n in self.frame_order if n in live]

    def thread_jumps(self) -> None:
        """An arm whose only line is a jump is skipped: jumps and resume points that lead
        to it lead to where it jumps. Its number stays unused."""
        alias: dict[int, Arm] = {}
        for arm in self.arms:
            if len(arm.lines) == 1 and isinstance(arm.lines[0][1], Jump) and arm.lines[0][0] == 0:
                alias[arm.index] = arm

        def final(ref: Any) -> Arm:
            arm = ref if isinstance(ref, Arm) else ref.get()
            seen = set()
            while arm.index in alias and arm.index not in seen:
                seen.add(arm.index)
                nxt = alias[arm.index].lines[0][1].target
                arm = nxt if isinstance(nxt, Arm) else nxt.get()
            return arm

        if not alias:
            return
        for arm in self.arms:
            arm.lines = [
                (ind, Jump(final(t.target), t.tail) if isinstance(t, Jump) else t)
                for ind, t in arm.lines
            ]
        self.entries = [(final(resume), ask) for resume, ask in self.entries]
        for token, ref in list(self.break_tokens.items()):
            target = final(ref)
            self.break_tokens[token] = target
            self.tokens[token] = _constant(str(target.index))
        self.skipped = {i for i in alias if final(self.arms[i]).index != i}

    def liveness(self) -> None:
        """For each arm, the frame locals that may be read from its start on before they
        are assigned (a safe over-estimate: only unconditional assignments at the arm's top
        level count as assignments).

        An arm may leave before its end (a ``break`` or a branch's jump inside an ``if``):
        each way out is an edge that only the assignments above it hide. A local assigned
        after a conditional ``break`` is still live on the way out through the ``break``.
        """
        order = set(self.frame_order)
        uses: list[set[str]] = []
        # per arm, its ways out: (target arm, the locals assigned before leaving that way)
        exits: list[list[tuple[int, frozenset[str]]]] = []
        defs: list[frozenset[str]] = []
        for arm in self.arms:
            used: set[str] = set()
            defined: set[str] = set()
            outs: list[tuple[int, frozenset[str]]] = []
            for ind, text in arm.lines:
                if isinstance(text, Jump):
                    outs.append((_index(text.target), frozenset(defined)))
                    continue
                m = _ASSIGN_ANY.match(text)
                f = _FOR_LINE.match(text) if m is None else None
                if m is not None and m.group(2) in order:
                    # an assignment reads only its right side; only one at the arm's top
                    # level is sure to run (a conditional one hides nothing)
                    rhs = {n for n in _NAMES.findall(m.group(3)) if n in order}
                    used |= rhs - defined
                    if ind == 0 and not m.group(1) and m.group(2) not in rhs:
                        defined.add(m.group(2))
                elif f is not None:
                    # a loop reads what it loops over, not its variables (it sets them)
                    used |= {n for n in _NAMES.findall(f.group(2)) if n in order} - defined
                else:
                    used |= {n for n in _NAMES.findall(text) if n in order} - defined
                for token, ref in self.break_tokens.items():
                    if token in text:
                        outs.append((_index(ref), frozenset(defined)))
            uses.append(used)
            exits.append(outs)
            defs.append(frozenset(defined))
        for resume, ask in self.entries:
            if ask is not None:
                # the question ends its arm: every assignment of the arm comes before it
                exits[ask.index].append((_index(resume), defs[ask.index]))
        live = [set(u) for u in uses]
        changed = True
        while changed:
            changed = False
            for i in range(len(self.arms) - 1, -1, -1):
                for j, hidden in exits[i]:
                    more = live[j] - hidden - live[i]
                    if more:
                        live[i] |= more
                        changed = True
        self.live = live

    def machine(self) -> str:
        """The R form: a ``pc`` switch whose arms start at resume points."""
        r = self.r
        self.tokens = {}
        params = self.params()
        self.cur = self.new_arm()
        self.lower_body(r.body, top=True)
        if not self.cur.closed:
            self.arm_line(0, "return None")
            self.cur.closed = True
        self.thread_jumps()
        names = {p for p, _ in params}
        locals_ = [py for py in self.scope.declared if py not in names]
        self.frame_order = [py for py, _ in params] + locals_
        self.liveness()
        unpack: dict[int, list[str]] = {}
        for resume, ask in self.entries:
            layout = self.layout_of(resume, ask)
            unpack[_index(resume)] = layout
            if ask is not None:
                unpack[ask.index] = layout
        args = ["self", "S: list[Any]", "F: Any", "v: Any"]
        args += [f"{py}: {self.annotation(t)} = {zero(t)}" for py, t in params]
        out = [f"def r_{method_stem(r)}({', '.join(args)}) -> Any:", f"    {doc_string(r)}"]
        for py in locals_:
            out.append(f"    {py}: Any = None")
        multi = len(self.arms) - len(self.skipped) > 1
        if multi:
            out.append("    pc: int = 0 if F is None else F[1]")
            # a frame that names no resume point (a forged position) is an error, not a loop
            # that never ends
            # the resume points as the bits of one int: a line however many a routine has
            mask = sum(1 << k for k in unpack)
            out.append(f"    # resume points: {_spans(sorted(unpack))}")
            out.append(f"    if F is not None and (pc < 0 or not (0x{mask:X} >> pc) & 1):")
            out.append(f"        raise RulesError(f'routine {r.name}: no resume point {{pc}}')")
        # a loop around the arms only if some jump goes back (or out of a loop: break)
        loop = bool(self.break_tokens) or any(
            isinstance(t, Jump) and not (t.tail and _index(t.target) > arm.index)
            for arm in self.arms
            if arm.index not in self.skipped
            for _ind, t in arm.lines
        )
        if loop:
            out.append("    while True:")
        base = (3 if loop else 2) if multi else 1
        for arm in self.arms:
            if arm.index in self.skipped:
                continue
            if multi:
                out.append("    " * (base - 1) + f"if pc == {arm.index}:")
            pad = "    " * base
            saved = unpack.get(arm.index)
            if saved is not None:
                out.append(f"{pad}if F is not None:")
                if saved:
                    out.append(
                        f"{pad}    {', '.join(saved)}{',' if len(saved) == 1 else ''} = F[2:]"
                    )
                out.append(f"{pad}    F = None")
            if not arm.lines:
                out.append(pad + "pass")
            for ind, text in arm.lines:
                pad = "    " * (base + ind)
                if isinstance(text, Jump):
                    k = _index(text.target)
                    out.append(f"{pad}pc = {k}")
                    if not (text.tail and k > arm.index):
                        out.append(f"{pad}continue")
                else:
                    out.append(pad + text)
        code = "\n".join(out)
        while "\x00" in code:
            for token, fn in self.tokens.items():
                code = code.replace(token, fn())
        code = mark_unused(code, self.scope.declared)
        return "\n\n".join([code, *(self.recompute_defs[n] for n in sorted(self.recompute_defs))])

    def new_arm(self) -> Arm:
        arm = Arm(len(self.arms))
        self.arms.append(arm)
        return arm

    def arm_line(self, ind: int, text: Any) -> None:
        assert self.cur is not None
        self.cur.lines.append((ind, text))

    def jump(self, target: Arm | ArmRef, ind: int = 0) -> None:
        """End the current arm (or a branch of it, at ``ind``) with a jump."""
        assert self.cur is not None
        self.cur.lines.append((ind, Jump(target, tail=True)))
        if ind == 0:
            self.cur.closed = True

    def break_lines(self) -> list[str]:
        """``break`` out of a loop that was split into arms."""
        after = self.loops[-1][2]
        token = self.arm_index(after)
        self.break_tokens[token] = after
        return [f"pc = {token}", "continue"]

    def lower_body(self, body: list[Stmt], top: bool = False) -> None:
        self.scope.push()
        for s in body:
            if self.cur is None or self.cur.closed:
                # unreachable code after return or break: an arm of its own
                self.cur = self.new_arm()
            self.lower_stmt(s)
        self.scope.pop()

    def lower_stmt(self, s: Stmt) -> None:
        assert self.cur is not None
        if not stops(s, self.game):
            lines: list[str] = []
            self.simple(s, lines, 0)
            for text in lines:
                self.arm_line(0, text)
            if isinstance(s, Return) or (
                isinstance(s, Break) and self.loops and self.loops[-1][0] == "arm"
            ):
                self.cur.closed = True
            return
        self.arm_line(0, self.origin(s))
        if isinstance(s, (Let, Assign)) and isinstance(s.value, Call):
            self.lower_call(s.value, s)
        elif isinstance(s, ExprStmt) and isinstance(s.expr, Call):
            self.lower_call(s.expr, None)
        elif isinstance(s, If):
            self.lower_if(s)
        elif isinstance(s, While):
            self.lower_while(s)
        elif isinstance(s, For):
            self.lower_for(s)
        elif isinstance(s, Simultaneously):
            self.lower_simultaneously(s)
        elif isinstance(s, AtOnce):
            self.lower_at_once(s)
        else:
            raise CodegenError(f"cannot lower {type(s).__name__}")

    def assign_result(self, s: Stmt | None) -> None:
        """In the resume arm: the answer (or returned value) ``v`` into the statement's target."""
        if s is None:
            return
        lines: list[str] = []
        if isinstance(s, Let):
            lines.append(f"{self.scope.declare(s.name)} = v")
        else:
            assert isinstance(s, Assign)
            self.store(lines, 0, s.target, "v", None)
        for text in lines:
            self.arm_line(0, text)

    def lower_call(self, c: Call, s: Stmt | None) -> None:
        b = BUILTINS.get(c.func)
        if b is not None and b.decision is not None:
            self.lower_decision(c, s)
            return
        if b is not None and b.resume is not None:
            call = b.resume(self, c)  # type: ignore[arg-type]
        else:
            r = c.ref
            assert isinstance(r, ir.Routine)
            args = "".join(", " + self.expr(a) for a in c.args)
            call = f"self.r_{method_stem(r)}(S, None, None{args})"
        resume = ArmRef()
        test = f"(v := {call})" if s is not None else call
        self.arm_line(0, f"if {test} is SUSPEND:")
        self.arm_line(1, f"return _wait(S, {self.frame(resume)})")
        arm = resume.set(self.new_arm())
        self.jump(arm)
        self.cur = arm
        self.assign_result(s)

    def decision_parts(self, c: Call) -> tuple[str, str, int, int, list[str]]:
        """(options code, option kind, prompt template, decline template, argument codes)."""
        d = decision_of(c)
        opts, kind = self.options_code(c)
        tid, args = self.template(c.args[d.prompt])
        decline = -1
        if isinstance(d.decline, int):  # the label is an argument
            decline, more = self.template(c.args[d.decline])
            args = args + more
        elif d.decline is not None:
            decline, _ = self.template(Str(c.src, c.off, [d.decline]))
        return opts, kind, tid, decline, args

    @staticmethod
    def site_kind(c: Call, kind: str) -> str:
        """The kind of a decision site: its builtin's, or ``choose-`` and the options'."""
        site = decision_of(c).site
        return site if site is not None else "choose-" + kind.split(":")[-1]

    def ask_arm(self) -> Arm:
        """The arm a decision is asked in: re-entered to ask again (``reask``), so nothing
        before the question may be in it."""
        assert self.cur is not None
        if all(isinstance(t, str) and t.startswith("#@") for _, t in self.cur.lines):
            return self.cur
        ask = self.new_arm()
        self.jump(ask)
        self.cur = ask
        return ask

    def note_prompt(self, site: int, c: Call, simultaneous: bool) -> None:
        """Record a decision site whose prompt (or decline text) shows a secret value, and
        the condition its options are filtered by."""
        d = decision_of(c)
        end = d.decline + 1 if isinstance(d.decline, int) else d.prompt + 1
        texts = c.args[d.prompt : end]
        if any(secrecy_of(self.sd).secret(self.r.name, t) for t in texts):
            self.tables.secret_prompts.add(site)
        if d.options is None:  # the list in argument 2: its filter, where it has one
            cond = filter_text(c.args[1], self.r.body)
            if cond is not None:
                self.tables.site_filters[site] = cond

    def lower_decision(self, c: Call, s: Stmt | None) -> None:
        ask = self.ask_arm()
        opts, kind, tid, decline, args = self.decision_parts(c)
        site_kind = self.site_kind(c, kind)
        player = self.expr(c.args[0])
        site = self.tables.site((site_kind, tid, kind, decline, self.rid, ask.index, False))
        self.note_prompt(site, c, False)
        resume = ArmRef()
        frame = self.frame(resume, ask)
        more = f", {pack(args)}" if args else ""
        if not decision_of(c).lazy:
            opts = as_tuple(opts)
        self.arm_line(0, f"return self.ask(S, {frame}, {player}, {site}, {opts}{more})")
        ask.closed = True
        self.cur = resume.set(self.new_arm())
        answered = decision_of(c).answered
        if answered is not None:
            answered(self)  # type: ignore[arg-type]
        self.assign_result(s)

    def lower_simultaneously(self, s: Simultaneously) -> None:
        first = s.body[0]
        assert isinstance(first, Let) and isinstance(first.value, Call)
        c = first.value
        ask = self.ask_arm()
        ps = self.scope.declare("_ps")
        self.arm_line(0, f"{ps} = tuple({self.iterable(s.iter)})")
        self.scope.push()
        var = self.scope.declare(s.var)
        resume = ArmRef()
        self.arm_line(0, "_d = []")
        self.arm_line(0, f"for {var} in {ps}:")
        self.ask_one(c, var, ask, 1)
        self.arm_line(0, f"return _ask_all(S, {self.frame(resume, ask)}, _d)")
        ask.closed = True
        self.cur = resume.set(self.new_arm())
        self.arm_line(0, "_a = dict(v)")
        self.arm_line(0, f"for {var} in {ps}:")
        self.arm_line(1, f"{self.scope.declare(first.name)} = _a[{var}]")
        self.loops.append(("py", None, None))
        lines: list[str] = []
        for b in s.body[1:]:
            self.simple(b, lines, 1)
        if only_markers(lines):
            lines.append("    pass")
        for text in lines:
            self.arm_line(0, text)
        self.loops.pop()
        self.scope.pop()

    def ask_one(self, c: Call, who: str, ask: Arm, depth: int) -> None:
        """The lines that add player ``who``'s decision ``c`` (at its own site) to the
        decisions ``_d`` asked all at once, ``depth`` levels in."""
        opts, kind, tid, decline, args = self.decision_parts(c)
        site_kind = self.site_kind(c, kind)
        site = self.tables.site((site_kind, tid, kind, decline, self.rid, ask.index, True))
        self.note_prompt(site, c, True)
        d = decision_of(c)
        self.arm_line(depth, f"_o = {opts if d.lazy else as_tuple(opts)}")
        if d.decline is None:  # nothing to choose and no way to decline: a dead end
            self.arm_line(depth, "if not _o:")
            self.arm_line(depth + 1, f"_dead({site_kind!r}, {who})")
        self.arm_line(depth, f"_d.append(({who}, {site}, _o, {pack(args)}))")

    def lower_at_once(self, s: AtOnce) -> None:
        """``simultaneously:``: each line's decision asked of its own player, all at once
        (each at its own site: the options may differ); once all have answered, each answer
        goes into its local."""
        lets = [b for b in s.body if isinstance(b, Let) and isinstance(b.value, Call)]
        ask = self.ask_arm()
        who = [self.scope.declare(f"_w{k}") for k in range(len(lets))]
        for w, b in zip(who, lets, strict=True):
            assert isinstance(b.value, Call)
            self.arm_line(0, f"{w} = {self.expr(b.value.args[0])}")
        self.arm_line(0, f"if len({{{', '.join(who)}}}) < {len(who)}:")
        self.arm_line(1, f"raise RulesError({SAME_PLAYER!r})")
        resume = ArmRef()
        self.arm_line(0, "_d = []")
        for w, b in zip(who, lets, strict=True):
            assert isinstance(b.value, Call)
            self.ask_one(b.value, w, ask, 0)
        self.arm_line(0, f"return _ask_all(S, {self.frame(resume, ask)}, _d)")
        ask.closed = True
        self.cur = resume.set(self.new_arm())
        self.arm_line(0, "_a = dict(v)")
        for w, b in zip(who, lets, strict=True):
            self.arm_line(0, f"{self.scope.declare(b.name)} = _a[{w}]")

    def lower_if(self, s: If) -> None:
        head = self.cur
        assert head is not None
        after = ArmRef()
        for i, (cond, body) in enumerate(s.branches):
            kw = "if" if i == 0 else "elif"
            self.cur = head
            head.lines.append((0, f"{kw} {self.expr(cond)}:"))
            self.branch(head, body, after)
        self.cur = head
        head.lines.append((0, "else:"))
        self.branch(head, s.orelse, after)
        head.closed = True
        self.cur = after.set(self.new_arm())

    def branch(self, head: Arm, body: list[Stmt], after: ArmRef) -> None:
        """One branch of an ``if`` another branch of which waits: inline if it does not."""
        if not stops(body, self.game):
            lines: list[str] = []
            if body:
                self.simple_body(body, lines, 1)
            for text in lines:
                head.lines.append((0, text))
            if not (body and isinstance(body[-1], (Return, Break))):
                head.lines.append((1, Jump(after, tail=True)))
            return
        arm = self.new_arm()
        head.lines.append((1, Jump(arm, tail=True)))
        self.cur = arm
        self.lower_body(body)
        if not self.cur.closed:
            self.jump(after)

    def lower_while(self, s: While) -> None:
        # a bound on runaway rules, counted across the decisions the loop asks (see MAX_LOOP)
        runs = self.scope.declare("_runs")
        self.arm_line(0, f"{runs} = 0")
        enter = (f"{runs} += 1", f"if {runs} > MAX_LOOP: _endless_loop()")
        self.lower_loop(lambda: self.expr(s.cond), enter, s.body)

    def lower_for(self, s: For) -> None:
        it = self.scope.declare("_it")
        i = self.scope.declare("_i")
        src, loop_body = loop_source(self, s)
        self.arm_line(0, f"{it} = tuple({src})")
        self.arm_line(0, f"{i} = 0")
        self.scope.push()
        var = self.scope.declare(s.var)
        self.lower_loop(lambda: f"{i} < len({it})", (f"{var} = {it}[{i}]", f"{i} += 1"), loop_body)
        self.scope.pop()

    def lower_loop(self, test: Callable[[], str], enter: Sequence[str], body_stmts: Any) -> None:
        """A loop across resume points: a head arm tests ``test()`` (read in the head), runs
        the ``enter`` lines and jumps to the body, whose end jumps back to the head."""
        head = self.new_arm()
        self.jump(head)
        self.cur = head
        body = self.new_arm()
        after = ArmRef()
        self.arm_line(0, f"if {test()}:")
        for line in enter:
            self.arm_line(1, line)
        self.arm_line(1, Jump(body, tail=True))
        self.arm_line(0, "else:")
        self.arm_line(1, Jump(after, tail=True))
        head.closed = True
        self.cur = body
        self.loops.append(("arm", head, after))
        self.lower_body(body_stmts)
        if not self.cur.closed:
            self.jump(head)
        self.loops.pop()
        self.cur = after.set(self.new_arm())


class ArmRef:
    """An arm that is created later (arms are numbered in program order)."""

    def __init__(self) -> None:
        self.arm: Arm | None = None

    def set(self, arm: Arm) -> Arm:
        self.arm = arm
        return arm

    def get(self) -> Arm:
        if self.arm is None:
            raise CodegenError("a jump to an arm that was never made")
        return self.arm


def _constant(text: str) -> Any:
    return lambda: text


_NAMES = re.compile(r"\bv_\w+")
_ASSIGN_ANY = re.compile(r"^(\s*)(v_\w+) = (.*)$")
_FOR_LINE = re.compile(r"^\s*for (v_\w+(?:, v_\w+)?) in (.*):$")


def _index(ref: Any) -> int:
    return ref.index if isinstance(ref, Arm) else ref.get().index


def _spans(points: list[int]) -> str:
    """``[2, 3, 4, 8]`` as ``2-4, 8``."""
    spans: list[list[int]] = []
    for k in points:
        if spans and k == spans[-1][1] + 1:
            spans[-1][1] = k
        else:
            spans.append([k, k])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in spans)
