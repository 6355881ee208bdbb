"""A row of the table of builtins: what the compiler knows of one builtin."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from .. import ir
from ..effects import Call, Expr

# What a row may ask of the stage that reads it. The rows are below the checker and the
# code generator (which import them), so they name these interfaces, not those classes.


class Checker(Protocol):
    """What a type rule uses of the checker (:class:`rulecraft.compiler.checker.Checker`)."""

    game: ir.Game

    def expr(self, e: Expr) -> ir.Type: ...
    def expect(self, node: Any, got: ir.Type, want: ir.Type, what: str) -> None: ...
    def error(self, code: str, message: str, node: Any, hint: str | None = None) -> None: ...
    def arity(self, c: Call, n: int, most: int | None = None) -> bool: ...
    def args(self, c: Call, *types: ir.Type) -> list[ir.Type]: ...
    def prompt_arg(self, c: Call, i: int) -> None: ...
    def option_type(self, c: Call, opts: ir.Type) -> ir.Type: ...


class ExprGen(Protocol):
    """What an emitter uses of the expression generator (``codegen/exprs.py``)."""

    sd: Any  # the scenario's data (codegen.data.ScenarioData)
    tables: Any  # the class's log templates (codegen.class_tables.ClassTables), or None

    def expr(self, e: Expr) -> str: ...
    def iterable(self, e: Expr) -> str: ...
    def inl(self, e: Expr) -> Expr: ...
    def mask(self, e: Expr) -> str | None: ...
    def element_count(self, comp: Any, test: bool = False) -> str | None: ...
    def static_table(self, a: Expr) -> str | None: ...
    def table_index(self, tid: str) -> int: ...


class RoutineGen(Protocol):
    """What a statement line or a decision uses of the routine generator
    (``codegen/routines.py``)."""

    sd: Any  # the scenario's data (codegen.data.ScenarioData)
    tables: Any  # the class's log templates and sites (codegen.class_tables.ClassTables)
    form: str  # "F", "P", "Q" or "R"
    cards_wait: bool

    def expr(self, e: Expr) -> str: ...
    def iterable(self, e: Expr) -> str: ...
    def atom(self, code: str) -> str: ...
    def fail(self, message: str) -> NoReturn: ...
    def arm_line(self, ind: int, text: Any) -> None: ...
    def fresh(self, stem: str) -> str: ...
    @staticmethod
    def option_kind(elem: ir.Type | None) -> str: ...


#: a builtin's type rule: checks a call's arguments, gives the type of its value
TypeRule = Callable[[Checker, Call], ir.Type]
#: Python code of a builtin's value in an expression
Emitter = Callable[[ExprGen, Call], str]
#: Python code of a statement-only builtin (a line of a routine that runs it at once)
Runner = Callable[[RoutineGen, Call], str]


@dataclass(frozen=True)
class Decision:
    """How a builtin that asks a player is compiled (see ``codegen/machine.py``)."""

    #: the argument that is the prompt
    prompt: int
    #: the playout's random answer; ``{opts}`` is the code of the options
    draw: str
    #: the kind of decision site; None: ``choose-`` and the kind of the options
    site: str | None = None
    #: the options' code and kind; None: the list in argument 2, without repeats
    options: Callable[[RoutineGen, Call], tuple[str, str]] | None = None
    #: the label of declining: the argument after the prompt (int), a fixed text, or None
    #: (then a decision without options is a dead end the runtime reports)
    decline: int | str | None = None
    #: the options are built by a runtime helper when asked (not made a tuple)
    lazy: bool = False
    #: lines of the resume arm before the answer ``v`` is stored
    answered: Callable[[RoutineGen], None] | None = None


@dataclass(frozen=True)
class Builtin:
    """One builtin of the effect language."""

    name: str
    #: the parameters as the language reference shows them
    params: tuple[str, ...]
    #: what it gives or does, as the language reference says it (Markdown)
    doc: str
    #: the type rule (checker)
    check: TypeRule
    #: the code of its value in an expression (None: a statement only)
    emit: Emitter | None = None
    #: the line that runs it on its own line, without waiting
    run: Runner | None = None
    #: keyword arguments it takes, with the example value the reference shows
    kwargs: dict[str, str] = field(default_factory=dict)
    #: its type rule checks the names of its keyword arguments (`resolve`: the table's shifts)
    open_kwargs: bool = False
    #: only on its own line (it has side effects or asks for a decision)
    statement: bool = False
    #: "decision": it waits for a player's answer; "card": it waits when a card effect may
    waits: str = ""
    #: how a decision is asked and drawn
    decision: Decision | None = None
    #: the routine that runs it may stop there (a decision, a card, the end of the game):
    #: the checker's first, cautious count of the routines that wait
    stops: bool = False
    #: it changes the game (or its facts): a field tested before may differ after it
    changes: bool = False
    #: it can neither change the state (a die, a shuffle) nor fail; a function of the call
    #: when that depends on the arguments
    quiet: bool | Callable[[Call], bool] = False
    #: the call of its machine form, which may return SUSPEND (``waits`` builtins that are
    #: not decisions)
    resume: Runner | None = None

    def usage(self) -> str:
        """The call as the language reference writes it: ``allocate(p, ..., max_each=n)``."""
        args = [*self.params, *(f"{k}={v}" for k, v in self.kwargs.items())]
        return f"{self.name}({', '.join(args)})"

    def is_quiet(self, c: Call) -> bool:
        return self.quiet(c) if callable(self.quiet) else self.quiet
