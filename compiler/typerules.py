"""Which type may stand where another is expected, and how a type is named in a message.

Shared by the checker and the type rules of the builtins (``builtins.py``).
"""

from __future__ import annotations

from . import ir


def compatible(src: ir.Type, dst: ir.Type) -> bool:
    """Whether a value of type ``src`` may be used where ``dst`` is expected."""
    if src == dst or ir.ANY in (src, dst):
        return True
    if src.kind == "none":
        return dst.kind in ("player", "card", "entity", "enum", "str", "deal", "none")
    if dst.kind == "none":
        return src.kind in ("player", "card", "entity", "enum", "str", "deal")
    if src.kind == "list" and dst.kind == "list":
        assert src.elem is not None and dst.elem is not None
        return compatible(src.elem, dst.elem)
    if {src.kind, dst.kind} == {"enum", "str"}:
        return True
    if src.kind == dst.kind == "result":
        return src.elem is not None or dst.elem is None  # only resolve's results have a roll
    return False


def article(t: ir.Type) -> str:
    """A type as a message names it: ``a player``, ``an int``, ``list[card]``."""
    s = str(t)
    if t.kind in ("list", "any", "none", "void"):
        return s
    return ("an " if s[0] in "aeiou" else "a ") + s


def untyped_list(t: ir.Type) -> bool:
    """A list whose elements' type is not known: the type of ``[]``."""
    return t.kind == "list" and t.elem == ir.ANY


def refines(local: ir.Type, given: ir.Type) -> bool:
    """Whether a local of type ``local`` takes the type ``given`` when given a value of it:
    one started as ``[]`` the first list of known elements, one started as ``none`` the
    first value that is not none."""
    if local.kind == "none":
        return given.kind not in ("none", "any", "void")
    return untyped_list(local) and given.kind == "list" and not untyped_list(given)
