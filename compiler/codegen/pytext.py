"""Python text the routine generator writes: tidy expressions, unused locals marked, small
pieces of syntax."""

from __future__ import annotations

import ast
import re
from collections import Counter

from .. import ir


def mark_unused(code: str, names: list[str]) -> str:
    """Locals a method only assigns (never reads) get a leading underscore, as Python's
    linters expect: a rule may compute a value this form of the routine does not use (the
    player of a decision drawn at random in a playout, say)."""
    # one pass over the code for all the names (a pass per name is quadratic in a long rule)
    wanted = set(names)
    uses = Counter(w for w in _WORD.findall(code) if w in wanted)
    writes: Counter[str] = Counter()
    for m in _WRITE.finditer(code):
        writes[m.group(1)] += 1
    for m in _FOR.finditer(code):
        writes.update(g for g in m.groups() if g is not None)
    unused = {n for n, k in uses.items() if k == writes[n]}
    if not unused:
        return code
    return _WORD.sub(lambda m: "_" + m.group() if m.group() in unused else m.group(), code)


_WORD = re.compile(r"\b\w+\b")
_WRITE = re.compile(r"(?m)^\s*(\w+)(?:: Any|: int|: i64)? = ")
_FOR = re.compile(r"\bfor (\w+)(?:, (\w+))? in\b")


def only_markers(lines: list[str]) -> bool:
    """Whether a block holds no statement, only rules-position markers (a block of log lines
    in a form without a log): Python needs a ``pass`` there."""
    return all(line.lstrip().startswith("#@") for line in lines)


class _Unparser(ast._Unparser):  # type: ignore[name-defined,misc]
    """``ast.unparse``, without doubling the parentheses of a call's only argument when
    it is a generator expression (``any(x for x in y)``)."""

    def visit_Call(self, node: ast.Call) -> None:
        if len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.GeneratorExp):
            self.set_precedence(ast._Precedence.ATOM, node.func)  # type: ignore[attr-defined]
            self.traverse(node.func)
            self.traverse(node.args[0])
            return
        super().visit_Call(node)


_TIDY: dict[str, str] = {}


def tidy(code: str) -> str:
    """An expression with only the parentheses Python needs (the generator writes them all)."""
    out = _TIDY.get(code)
    if out is None:
        out = _TIDY[code] = _Unparser().visit(ast.parse(code, mode="eval"))
    return out


def as_tuple(code: str) -> str:
    return code if code.startswith("(") or code.startswith("_bits(") else f"tuple({code})"


def pack(args: list[str]) -> str:
    return f"({args[0]},)" if len(args) == 1 else "(" + ", ".join(args) + ")"


def doc_string(r: ir.Routine) -> str:
    text = " ".join((r.origin.doc or r.name).split())
    rules = f" ({', '.join(r.origin.rules)})" if r.origin.rules else ""
    return repr(f"{text}{rules} [{r.origin.pos}]")


#: the type of ``R``, the playout's source of random numbers in [0, 1): annotated, not
#: ``Any``, so that the native build multiplies and truncates the draw unboxed
#: (``int(R() * n)``) instead of through generic calls
DRAW = "Callable[[], float]"
#: the type of a reference that is never none (a seat, card or record index, nonone.py) and
#: of a state offset, in the plain forms: mypyc's 64-bit int (``mypy_extensions.i64``), whose
#: arithmetic and comparisons the native build makes in C, without the checks of an
#: arbitrary-size int. An index is far within its range. Interpreted, the annotation is
#: never evaluated; the modules import the name for type checkers only (``I64_IMPORT``).
REF = "i64"
I64_IMPORT = "if TYPE_CHECKING:\n    from mypy_extensions import i64"


def zero(t: ir.Type) -> str:
    if t == ir.INT:
        return "0"
    if t == ir.BOOL:
        return "False"
    return "None"


def value_kind(t: ir.Type | None) -> str:
    if t is None:
        return "str"
    if t.kind in ("player", "card", "int", "bool", "table", "deal"):
        return t.kind
    if t.kind == "entity":
        return "e:" + t.name
    return "str"


def is_simple(code: str) -> bool:
    return code.isidentifier() or code.replace("self.", "").replace("_", "").isalnum()


_INT_VIEW = re.compile(r"(?<![\w.])N\[")


def _after_doc(method: list[str]) -> int:
    """The index of the first line of ``method`` (its lines, ``def`` first) after its
    docstring, which may take several lines; 1 without one."""
    line = method[1].strip() if len(method) > 1 else ""
    if not line.startswith(("'", '"')):
        return 1
    quote = line[:3] if line[:3] in ('"""', "'''") else line[0]
    if len(line) >= 2 * len(quote) and line.endswith(quote):
        return 2  # a docstring of one line
    fn = ast.parse("\n".join(method)).body[0]
    assert isinstance(fn, ast.FunctionDef)
    return fn.body[0].end_lineno or 1  # the docstring's last line, counted from 1


def bind_int_view(methods: str) -> str:
    """Each method that reads int slots through ``N`` (:meth:`.exprs.ExprGen.read`) binds it
    first, after its docstring: ``N: list[int] = S``. The same list, so interpreted it costs
    one assignment; the native build (mypyc) reads ints from it unboxed, checking each is
    an int. ``methods`` is the text of one or more methods (``def`` at column 0)."""
    if not _INT_VIEW.search(methods):
        return methods
    out: list[str] = []
    chunk: list[str] = []
    for line in [*methods.split("\n"), "def"]:
        if line.startswith("def ") or line == "def":
            if chunk and any(_INT_VIEW.search(ln) for ln in chunk):
                chunk.insert(_after_doc(chunk), "    N: list[int] = S")
            out.extend(chunk)
            chunk = []
        chunk.append(line)
    return "\n".join(out)
