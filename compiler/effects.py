"""The effect language: parsing effect snippets from YAML into AST nodes with positions.

A *snippet* is one string value in a rules file (a card's ``effect``, a function ``body``, a
condition).  Every node keeps the character offset where it starts inside its snippet; the
snippet knows how to turn that offset into ``file:line:col`` through the loader, so errors
point into the YAML file even inside quoted, folded and block strings.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from lark import Lark, Token, Transformer, Tree, v_args
from lark.exceptions import (
    UnexpectedCharacters,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
)
from lark.indenter import Indenter

from .diagnostics import DiagnosticSink, Position
from .limits import MAX_BLOCK_DEPTH, MAX_EXPR_DEPTH, MAX_NUMBER_DIGITS

# ---------------------------------------------------------------------------- snippets


@dataclass(eq=False)
class Snippet:
    """One effect-language string and where it lives."""

    text: str
    where: Callable[[int], Position]  # offset inside ``text`` -> file position
    what: str = "effect"  # for messages: "effect of card 'move_1'"

    def pos(self, offset: int) -> Position:
        return self.where(max(0, min(offset, max(len(self.text) - 1, 0))))

    def __deepcopy__(self, memo: dict[int, Any]) -> Snippet:
        # never changed once parsed: the models copied per scenario share their sources
        return self


# ---------------------------------------------------------------------------- AST


@dataclass(eq=False)
class Node:
    src: Snippet = field(repr=False)
    off: int

    @property
    def pos(self) -> Position:
        return self.src.pos(self.off)

    def __deepcopy__(self, memo: dict[int, Any]) -> Node:
        # copy.deepcopy's generic path (__reduce_ex__, then the state dict) was most of the
        # time of copying a model per scenario; numbers and names are shared as they are
        new = object.__new__(type(self))
        memo[id(self)] = new
        fields = new.__dict__
        for key, value in self.__dict__.items():
            fields[key] = value if type(value) in _ATOMIC else copy.deepcopy(value, memo)
        return new


#: values a copied node shares with its original
_ATOMIC = frozenset({str, int, bool, float, type(None), Snippet})


@dataclass(eq=False)
class Expr(Node):
    ty: Any = field(default=None, init=False, repr=False)  # set by the checker


@dataclass(eq=False)
class Name(Expr):
    id: str
    ref: Any = field(default=None, init=False, repr=False)  # what the checker resolved it to


@dataclass(eq=False)
class Int(Expr):
    value: int


@dataclass(eq=False)
class Str(Expr):
    parts: list[str | Expr]

    @property
    def is_plain(self) -> bool:
        return all(isinstance(p, str) for p in self.parts)

    @property
    def plain(self) -> str:
        return "".join(p for p in self.parts if isinstance(p, str))


@dataclass(eq=False)
class Bool(Expr):
    value: bool


@dataclass(eq=False)
class NoneLit(Expr):
    pass


@dataclass(eq=False)
class ListLit(Expr):
    items: list[Expr]


@dataclass(eq=False)
class Comp(Expr):
    elt: Expr
    var: str
    iter: Expr
    cond: Expr | None


@dataclass(eq=False)
class Attr(Expr):
    obj: Expr
    name: str
    name_off: int = 0
    ref: Any = field(default=None, init=False, repr=False)  # the field declaration


@dataclass(eq=False)
class Call(Expr):
    func: str
    args: list[Expr]
    ref: Any = field(default=None, init=False, repr=False)
    kwargs: dict[str, Expr] = field(default_factory=dict)
    #: where each named argument's name starts (errors point at the name)
    kwarg_offs: dict[str, int] = field(default_factory=dict, repr=False)


@dataclass(eq=False)
class BinOp(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class Compare(Expr):
    op: str
    left: Expr
    right: Expr


@dataclass(eq=False)
class In(Expr):
    item: Expr
    coll: Expr
    negate: bool


@dataclass(eq=False)
class BoolOp(Expr):
    op: str  # "and" | "or"
    left: Expr
    right: Expr


@dataclass(eq=False)
class Not(Expr):
    operand: Expr


@dataclass(eq=False)
class Neg(Expr):
    operand: Expr


@dataclass(eq=False)
class Ternary(Expr):
    cond: Expr
    then: Expr
    orelse: Expr


@dataclass(eq=False)
class Stmt(Node):
    pass


@dataclass(eq=False)
class Let(Stmt):
    name: str
    value: Expr
    declared: Any = field(default=None, init=False, repr=False)  # the local's type (checker)


@dataclass(eq=False)
class Assign(Stmt):
    target: Expr
    value: Expr


@dataclass(eq=False)
class AugAssign(Stmt):
    target: Expr
    op: str
    value: Expr


@dataclass(eq=False)
class Move(Stmt):
    item: Expr
    src_zone: Expr
    dst_zone: Expr


@dataclass(eq=False)
class MoveAll(Stmt):
    src_zone: Expr
    dst_zone: Expr


@dataclass(eq=False)
class Log(Stmt):
    audience: Expr | None
    text: Str


@dataclass(eq=False)
class Return(Stmt):
    value: Expr | None


@dataclass(eq=False)
class Break(Stmt):
    pass


@dataclass(eq=False)
class Pass(Stmt):
    pass


@dataclass(eq=False)
class ExprStmt(Stmt):
    expr: Expr


@dataclass(eq=False)
class If(Stmt):
    branches: list[tuple[Expr, list[Stmt]]]
    orelse: list[Stmt]


@dataclass(eq=False)
class For(Stmt):
    var: str
    iter: Expr
    body: list[Stmt]
    declared: Any = field(default=None, init=False, repr=False)  # the local's type (checker)


@dataclass(eq=False)
class While(Stmt):
    cond: Expr
    body: list[Stmt]


@dataclass(eq=False)
class Simultaneously(Stmt):
    var: str
    iter: Expr
    body: list[Stmt]
    declared: Any = field(default=None, init=False, repr=False)  # the local's type (checker)


@dataclass(eq=False)
class AtOnce(Stmt):
    """``simultaneously:`` with one decision per line, each by its own player, asked at
    once and in secret (the option sets may differ: attack plans, defence plans)."""

    body: list[Stmt]


@dataclass(eq=False)
class Match(If):
    """``match subject: case v1, v2: ... else: ...``: an ``if`` chain comparing ``subject``
    (a name or a field, evaluated once per case) with literal values; ``cases`` keeps the
    values of each case for the checker."""

    subject: Expr | None = None
    cases: list[list[Expr]] = field(default_factory=list)


@dataclass(eq=False)
class Reveal(Stmt):
    target: Expr
    audience: Expr | None


@dataclass(eq=False)
class Lasting(Stmt):
    """``start name(args)`` or ``end name(args)``: a lasting effect (`effects:` in rules.yaml)
    put in force or ended; lowered by `compiler/lasting.py` before the checker sees it."""

    op: str  # start | end
    name: str
    args: list[Expr]
    name_off: int = 0


def walk(node: Any):
    """Yield ``node`` and every AST node below it, depth first."""
    if isinstance(node, list):
        for item in node:
            yield from walk(item)
        return
    if isinstance(node, tuple):
        for item in node:
            yield from walk(item)
        return
    if isinstance(node, dict):  # a call's named arguments
        for item in node.values():
            yield from walk(item)
        return
    if not isinstance(node, Node):
        return
    yield node
    for name in node.__dataclass_fields__:
        if name in ("src", "ty", "ref"):
            continue
        yield from walk(getattr(node, name))


# ---------------------------------------------------------------------------- parser


class _EffectIndenter(Indenter):
    """Lark's indenter, with its two failures as positioned syntax errors: a line indented
    to no column a block started at (lark raises a bare ``DedentError``), and blocks nested
    deeper than :data:`MAX_BLOCK_DEPTH`."""

    NL_type = "_NL"
    OPEN_PAREN_types = ["LPAR", "LSQB"]
    CLOSE_PAREN_types = ["RPAR", "RSQB"]
    INDENT_type = "_INDENT"
    DEDENT_type = "_DEDENT"
    tab_len = 8

    def handle_NL(self, token: Token) -> Iterator[Token]:
        if self.paren_level > 0:
            return
        yield token
        # the token ends with the indentation of the next line with code
        indent_str = token.rsplit("\n", 1)[1]
        indent = indent_str.count(" ") + indent_str.count("\t") * self.tab_len
        line_start = token.end_pos if token.end_pos is not None else 0
        if indent > self.indent_level[-1]:
            if len(self.indent_level) > MAX_BLOCK_DEPTH:
                raise EffectSyntaxError(
                    f"blocks nested more than {MAX_BLOCK_DEPTH} deep",
                    line_start,
                    "move the inner part into a function of its own (functions: in rules.yaml)",
                    "limit",
                )
            self.indent_level.append(indent)
            yield Token.new_borrow_pos(self.INDENT_type, indent_str, token)
            return
        if indent not in self.indent_level:
            raise EffectSyntaxError(
                "the indentation of this line matches no block above it",
                line_start,
                "indent it exactly as far as the other lines of its block",
            )
        while indent < self.indent_level[-1]:
            self.indent_level.pop()
            yield Token.new_borrow_pos(self.DEDENT_type, indent_str, token)


@cache
def _parser() -> Lark:
    grammar = resources.files(__package__).joinpath("effects.lark").read_text(encoding="utf-8")
    return Lark(
        grammar,
        parser="lalr",
        start=["program", "expr"],
        postlex=_EffectIndenter(),
        propagate_positions=True,
        maybe_placeholders=True,
    )


@lru_cache(maxsize=8192)
def _tree(text: str, start: str) -> Tree:
    """The parse tree of ``text`` from rule ``start``, kept: variants, scenarios and a
    process's later compiles parse the same texts again (a tree is read, never changed)."""
    return _parser().parse(text, start=start)


class EffectSyntaxError(Exception):
    """A syntax error at ``offset`` inside a snippet (``code`` "limit" when the text is
    well-formed but over one of the limits of :mod:`.limits`)."""

    def __init__(self, message: str, offset: int, hint: str | None = None, code: str = "syntax"):
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.hint = hint
        self.code = code


_TOKEN_WORDS = {
    "_NL": "end of line",
    "_INDENT": "indented block",
    "_DEDENT": "end of block",
    "$END": "end of text",
    "NAME": "name",
    "INT": "number",
    "STRING": "string",
    "LPAR": "'('",
    "RPAR": "')'",
    "LSQB": "'['",
    "RSQB": "']'",
    "COLON": "':'",
    "COMMA": "','",
    "DOT": "'.'",
    "EQUAL": "'='",
    "COMP_OP": "comparison",
    "ADD_OP": "'+' or '-'",
    "MUL_OP": "'*'",
    "AUG_OP": "'+=' or '-='",
    "MINUS": "'-'",
}


def _describe_expected(expected: set[str]) -> str:
    words = set()
    for name in expected:
        if name in _TOKEN_WORDS:
            words.add(_TOKEN_WORDS[name])
        elif name.isupper() and name.isalpha():
            words.add(f"'{name.lower()}'")
        else:
            words.add(name.lower())
    items = sorted(words)
    if len(items) > 6:
        items = items[:6] + ["..."]
    return ", ".join(items)


def _syntax_error(text: str, err: UnexpectedInput) -> EffectSyntaxError:
    """Turn a Lark error into a message a designer can act on."""
    if isinstance(err, UnexpectedCharacters):
        ch = text[err.pos_in_stream] if err.pos_in_stream < len(text) else ""
        if ch == '"':
            return EffectSyntaxError("unterminated string", err.pos_in_stream, 'close it with "')
        if ch == "'":
            return EffectSyntaxError(
                "strings use double quotes", err.pos_in_stream, "write \"text\", not 'text'"
            )
        return EffectSyntaxError(f"unexpected character {ch!r}", err.pos_in_stream)
    if isinstance(err, UnexpectedEOF):
        return EffectSyntaxError("unexpected end of text", max(len(text.rstrip()) - 1, 0))
    assert isinstance(err, UnexpectedToken)
    tok = err.token
    offset = tok.start_pos if tok.start_pos is not None else len(text.rstrip())
    expected = set(err.expected)
    depth = _open_brackets(text, offset)
    if tok.type == "$END" or tok.type == "_DEDENT" and depth:
        if depth:
            return EffectSyntaxError("unclosed parenthesis or bracket", _last_open(text, offset))
        return EffectSyntaxError(
            f"unexpected end of text; expected {_describe_expected(expected)}",
            max(len(text.rstrip()) - 1, 0),
        )
    if tok.type == "_NL":
        if "COLON" in expected:
            return EffectSyntaxError("missing ':' at the end of this line", offset)
        if depth:
            return EffectSyntaxError("unclosed parenthesis or bracket", _last_open(text, offset))
        return EffectSyntaxError(
            f"this line is not complete; expected {_describe_expected(expected)}", offset
        )
    if tok.type == "_INDENT":
        return EffectSyntaxError("unexpected indentation", offset)
    if tok.type == "EQUAL" and "COMP_OP" in expected:
        return EffectSyntaxError("'=' assigns; to compare, write '=='", offset)
    shown = tok.value if tok.type not in ("_NL", "_DEDENT") else _TOKEN_WORDS[tok.type]
    return EffectSyntaxError(
        f"unexpected {shown!r}; expected {_describe_expected(expected)}", offset
    )


def _open_brackets(text: str, upto: int) -> int:
    depth = 0
    in_str = False
    for i, ch in enumerate(text[:upto]):
        if in_str:
            if ch == '"' and text[i - 1] != "\\":
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
    return depth


def _last_open(text: str, upto: int) -> int:
    stack: list[int] = []
    for i, ch in enumerate(text[:upto]):
        if ch in "([":
            stack.append(i)
        elif ch in ")]" and stack:
            stack.pop()
    return stack[-1] if stack else upto


def _start(item: Any) -> int:
    if isinstance(item, Token):
        return item.start_pos
    if isinstance(item, Node):
        return item.off
    meta = getattr(item, "meta", None)
    return getattr(meta, "start_pos", 0)


@v_args(meta=True)
class _ToAST(Transformer):
    def __init__(self, src: Snippet):
        super().__init__()
        self.src = src

    def _o(self, meta: Any) -> int:
        return meta.start_pos if not meta.empty else 0

    # programs and statements
    def program(self, meta, items):
        return [s for s in items if isinstance(s, Stmt)]

    def let_stmt(self, meta, items):
        name, value = items
        return Let(self.src, self._o(meta), str(name), value)

    def assign_stmt(self, meta, items):
        return Assign(self.src, self._o(meta), items[0], items[1])

    def aug_assign_stmt(self, meta, items):
        return AugAssign(self.src, self._o(meta), items[0], str(items[1]), items[2])

    def move_stmt(self, meta, items):
        return Move(self.src, self._o(meta), items[0], items[1], items[2])

    def move_all_stmt(self, meta, items):
        return MoveAll(self.src, self._o(meta), items[0], items[1])

    def log_stmt(self, meta, items):
        audience, text = items
        return Log(self.src, self._o(meta), audience, self._string(text))

    def return_stmt(self, meta, items):
        return Return(self.src, self._o(meta), items[0])

    def break_stmt(self, meta, items):
        return Break(self.src, self._o(meta))

    def pass_stmt(self, meta, items):
        return Pass(self.src, self._o(meta))

    def expr_stmt(self, meta, items):
        return ExprStmt(self.src, self._o(meta), items[0])

    def suite(self, meta, items):
        return [s for s in items if isinstance(s, Stmt)]

    def if_stmt(self, meta, items):
        cond, body, *rest = items
        branches = [(cond, body)]
        orelse: list[Stmt] = []
        for item in rest:
            if item is None:
                continue
            if item[0] == "elif":
                branches.append((item[1], item[2]))
            else:
                orelse = item[1]
        return If(self.src, self._o(meta), branches, orelse)

    def elif_clause(self, meta, items):
        return ("elif", items[0], items[1])

    def else_clause(self, meta, items):
        return ("else", items[0])

    def for_stmt(self, meta, items):
        return For(self.src, self._o(meta), str(items[0]), items[1], items[2])

    def while_stmt(self, meta, items):
        return While(self.src, self._o(meta), items[0], items[1])

    def simul_stmt(self, meta, items):
        return Simultaneously(self.src, self._o(meta), str(items[0]), items[1], items[2])

    def at_once_stmt(self, meta, items):
        return AtOnce(self.src, self._o(meta), items[0])

    def match_stmt(self, meta, items):
        subject, *rest = items
        if not isinstance(subject, (Name, Attr)) or any(
            not isinstance(n, (Name, Attr)) for n in walk(subject)
        ):
            raise _reject(
                _start(subject),
                "match reads a name or a field",
                "compute it first: let x = ...; match x:",
            )
        branches: list[tuple[Expr, list[Stmt]]] = []
        cases: list[list[Expr]] = []
        orelse: list[Stmt] = []
        for item in rest:
            if item is None:
                continue
            if item[0] == "else":
                orelse = item[1]
                continue
            values, body = item[1], item[2]
            if len(values) > MAX_EXPR_DEPTH:  # they become a chain of `or`s
                raise _reject(
                    _start(values[MAX_EXPR_DEPTH]),
                    f"a case with more than {MAX_EXPR_DEPTH} values",
                    "split it into several cases, or test membership: if x in [...]:",
                    "limit",
                )
            for v in values:
                if not isinstance(v, (Str, Int, Neg, Bool, NoneLit)):
                    raise _reject(_start(v), "a case is a literal value", 'write case "8+":')
            cond: Expr | None = None
            for v in values:
                test = Compare(self.src, _start(v), "==", subject, v)
                cond = test if cond is None else BoolOp(self.src, _start(v), "or", cond, test)
            assert cond is not None
            branches.append((cond, body))
            cases.append(values)
        return Match(self.src, self._o(meta), branches, orelse, subject, cases)

    def case_clause(self, meta, items):
        *values, body = items
        return ("case", values, body)

    def reveal_stmt(self, meta, items):
        target, audience = items
        return Reveal(self.src, self._o(meta), target, audience)

    def start_stmt(self, meta, items):
        return self._lasting("start", meta, items)

    def end_stmt(self, meta, items):
        return self._lasting("end", meta, items)

    def _lasting(self, op: str, meta: Any, items: list) -> Lasting:
        name, args = items
        positional = []
        for a in args or ():
            if isinstance(a, tuple):
                raise _reject(a[0].start_pos, f"{op} {name}(...) takes no named arguments", None)
            positional.append(a)
        return Lasting(self.src, self._o(meta), op, str(name), positional, name.start_pos)

    # expressions
    def name(self, meta, items):
        return Name(self.src, items[0].start_pos, str(items[0]))

    def int_(self, meta, items):
        digits = str(items[0]).lstrip("0") or "0"
        if len(digits) > MAX_NUMBER_DIGITS:
            raise _reject(
                items[0].start_pos,
                f"a number of {len(digits)} digits; numbers have at most {MAX_NUMBER_DIGITS}",
                "write a smaller number",
                "limit",
            )
        return Int(self.src, items[0].start_pos, int(digits))

    def string(self, meta, items):
        return self._string(items[0])

    def true(self, meta, items):
        return Bool(self.src, self._o(meta), True)

    def false(self, meta, items):
        return Bool(self.src, self._o(meta), False)

    def none(self, meta, items):
        return NoneLit(self.src, self._o(meta))

    def list_(self, meta, items):
        return ListLit(self.src, self._o(meta), [i for i in items if i is not None])

    def comprehension(self, meta, items):
        elt, var, it, cond = items
        return Comp(self.src, self._o(meta), elt, str(var), it, cond)

    def attr(self, meta, items):
        obj, name = items
        return Attr(self.src, _start(obj), obj, str(name), name.start_pos)

    def index(self, meta, items):
        # `xs[i]` is the builtin `nth(xs, i)`: one type rule and one emitter for both spellings
        obj, i = items
        return Call(self.src, _start(obj), "nth", [obj, i])

    def call(self, meta, items):
        func, args = items
        positional: list[Expr] = []
        kwargs: dict[str, Expr] = {}
        offs: dict[str, int] = {}
        for a in args or ():
            if isinstance(a, tuple):
                name, value = a
                if name in kwargs:
                    raise _reject(name.start_pos, f"argument {name}= given twice", None)
                kwargs[str(name)] = value
                offs[str(name)] = name.start_pos
            elif kwargs:
                raise _reject(_start(a), "a positional argument after a named one", None)
            else:
                positional.append(a)
        c = Call(self.src, func.start_pos, str(func), positional)
        c.kwargs = kwargs
        c.kwarg_offs = offs
        return c

    def args(self, meta, items):
        return items

    def kwarg(self, meta, items):
        return (items[0], items[1])

    def binop(self, meta, items):
        left, op, right = items
        return BinOp(self.src, _start(left), str(op), left, right)

    def compare(self, meta, items):
        left, op, right = items
        return Compare(self.src, _start(left), str(op), left, right)

    def in_(self, meta, items):
        return In(self.src, _start(items[0]), items[0], items[1], False)

    def not_in(self, meta, items):
        return In(self.src, _start(items[0]), items[0], items[1], True)

    def and_(self, meta, items):
        return BoolOp(self.src, _start(items[0]), "and", items[0], items[1])

    def or_(self, meta, items):
        return BoolOp(self.src, _start(items[0]), "or", items[0], items[1])

    def not_(self, meta, items):
        return Not(self.src, self._o(meta), items[0])

    def neg(self, meta, items):
        return Neg(self.src, self._o(meta), items[0])

    def ternary(self, meta, items):
        then, cond, orelse = items
        return Ternary(self.src, _start(then), cond, then, orelse)

    # strings with {expression} interpolation
    def _string(self, tok: Token) -> Str:
        raw = str(tok)[1:-1]
        base = tok.start_pos + 1
        parts: list[str | Expr] = []
        buf: list[str] = []
        i = 0
        while i < len(raw):
            ch = raw[i]
            if ch == "\\" and i + 1 < len(raw):
                buf.append({"n": "\n", "t": "\t"}.get(raw[i + 1], raw[i + 1]))
                i += 2
            elif ch == "{" and raw.startswith("{{", i):
                buf.append("{")
                i += 2
            elif ch == "}" and raw.startswith("}}", i):
                buf.append("}")
                i += 2
            elif ch == "{":
                end = raw.find("}", i)
                if end < 0:
                    raise EffectSyntaxError(
                        "unclosed '{' in string", base + i, "write {{ for a brace"
                    )
                if buf:
                    parts.append("".join(buf))
                    buf = []
                inner = raw[i + 1 : end]
                parts.append(_parse_inner(inner, self.src, base + i + 1))
                i = end + 1
            else:
                buf.append(ch)
                i += 1
        if buf:
            parts.append("".join(buf))
        return Str(self.src, tok.start_pos, parts)


def _reject(offset: int, message: str, hint: str | None, code: str = "syntax") -> EffectSyntaxError:
    return EffectSyntaxError(message, offset, hint, code)


# Rules of the grammar that are statements (or hold them): an expression starts below them.
_STATEMENT_RULES = frozenset(
    (
        "program suite if_stmt elif_clause else_clause for_stmt while_stmt simul_stmt at_once_stmt "
        "match_stmt case_clause let_stmt assign_stmt aug_assign_stmt move_stmt move_all_stmt "
        "log_stmt reveal_stmt start_stmt end_stmt return_stmt break_stmt pass_stmt expr_stmt"
    ).split()
)


# Rules that add no level: a call's arguments (one level with the call) and the leaves.
_FLAT_RULES = frozenset(("args", "name", "int_", "string", "true", "false", "none"))


def _check_depth(tree: Tree) -> None:
    """Refuse an expression nested deeper than :data:`MAX_EXPR_DEPTH` before anything walks
    the tree recursively (the transformer, the checker and the generator all do)."""
    stack: list[tuple[Any, int]] = [(tree, 0)]
    while stack:
        node, depth = stack.pop()
        if not isinstance(node, Tree):
            continue
        if node.data in _STATEMENT_RULES:
            depth = 0
        elif node.data not in _FLAT_RULES:
            depth += 1
        if depth > MAX_EXPR_DEPTH:
            raise EffectSyntaxError(
                f"an expression nested more than {MAX_EXPR_DEPTH} levels deep (each operator, "
                "call, bracket and 'not' is a level; a + b + c is two)",
                node.meta.start_pos if not node.meta.empty else 0,
                "compute parts of it first with let, or in a function",
                "limit",
            )
        stack.extend((child, depth) for child in reversed(node.children))


def _transform(src: Snippet, tree: Any) -> Any:
    _check_depth(tree)
    try:
        return _ToAST(src).transform(tree)
    except VisitError as err:
        if isinstance(err.orig_exc, EffectSyntaxError):
            raise err.orig_exc from None
        raise


def _parse_inner(inner: str, src: Snippet, base: int) -> Expr:
    """Parse an ``{expression}`` inside a string; offsets are shifted to the snippet."""
    if not inner.strip():
        raise EffectSyntaxError("empty '{}' in string", base)
    shifted = Snippet(" " * base + inner, src.where, src.what)
    try:
        tree = _tree(shifted.text, "expr")
    except UnexpectedInput as err:
        raise _syntax_error(shifted.text, err) from None
    return _transform(src, tree)


def parse_program(src: Snippet) -> list[Stmt]:
    """Parse a block of statements.  Raises ``EffectSyntaxError``."""
    text = src.text if src.text.endswith("\n") else src.text + "\n"
    if "\t" in text:
        tab = text.index("\t")
        line_start = text.rfind("\n", 0, tab) + 1
        if not text[line_start:tab].strip():
            raise EffectSyntaxError("indent with spaces, not tabs", tab)
    try:
        tree = _tree(text, "program")
    except UnexpectedInput as err:
        raise _syntax_error(text, err) from None
    return _transform(src, tree)


def parse_expr(src: Snippet) -> Expr:
    """Parse a single expression (a condition or a value).  Raises ``EffectSyntaxError``."""
    try:
        tree = _tree(src.text, "expr")
    except UnexpectedInput as err:
        raise _syntax_error(src.text, err) from None
    return _transform(src, tree)


def parse_into(
    src: Snippet, sink: DiagnosticSink, *, expression: bool = False
) -> list[Stmt] | Expr | None:
    """Parse ``src``; report a syntax error to ``sink`` and return None on failure."""
    try:
        return parse_expr(src) if expression else parse_program(src)
    except EffectSyntaxError as err:
        sink.error(err.code, f"{err.message} in {src.what}", src.pos(err.offset), err.hint)
        return None


def filter_text(options: Expr, body: Sequence[Stmt] = ()) -> str | None:
    """The condition a list of options is filtered by, as the rules write it: the ``if`` of
    a comprehension (``[c for c in countries if may_name(me, c)]``), of the one a local of
    ``body`` holds (a name ``let`` once), or of the one a function returns; None where there
    is none."""
    if isinstance(options, Name):
        lets = [s for s in walk(body) if isinstance(s, Let) and s.name == options.id]
        if len(lets) == 1:
            options = lets[0].value
    ref = getattr(options, "ref", None)
    if isinstance(options, Call) and len(getattr(ref, "body", ())) == 1:
        only = ref.body[0]
        if isinstance(only, Return) and only.value is not None:
            options = only.value
    if not isinstance(options, Comp) or options.cond is None:
        return None
    text, depth, quote = options.cond.src.text, 0, ""
    start = end = options.cond.off
    while end < len(text):
        ch = text[end]
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            if depth == 0:
                break
            depth -= 1
        end += 1
    return " ".join(text[start:end].split()) or None
