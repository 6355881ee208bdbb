"""A write to an int field with bounds keeps the value within them
(``compiler/codegen/forms.py``, ``PlainForms.clamped``): constant bounds compare the value
put in ``_clamp`` rather than calling ``min(max(v, lo), hi)``; a constant is clamped when
generating; bounds read from a record (which may cross) stay ``min``/``max``. Each form
gives what ``min(max(v, lo), hi)`` gives."""

from __future__ import annotations

import pytest
from rulecraft.compiler.codegen.forms import PlainForms


class _Lines:
    line = PlainForms.line


def _run(value: str, lo: str | None, hi: str | None, env: dict) -> tuple[object, str]:
    out: list[str] = []
    expr = PlainForms.clamped(_Lines(), out, 0, value, lo, hi)  # type: ignore[arg-type]
    out.append(f"result = {expr}")
    code = "\n".join(out)
    scope = dict(env)
    exec(code, {"min": min, "max": max}, scope)
    return scope["result"], code


def _expected(v: object, lo: int | None, hi: int | None) -> object:
    if lo is not None:
        v = max(v, lo)  # type: ignore[call-overload]
    if hi is not None:
        v = min(v, hi)  # type: ignore[call-overload]
    return v


@pytest.mark.parametrize(("lo", "hi"), [(0, 40), (-30, 40), (1939, 1946), (0, None), (None, 3)])
def test_constant_bounds_compare_without_calls(lo, hi):
    for v in [-100, -31, -30, -1, 0, 1, 3, 4, 39, 40, 41, 1938, 1939, 1946, 1947, True, False]:
        got, code = _run("x + 0" if not isinstance(v, bool) else "x", _s(lo), _s(hi), {"x": v})
        assert got == _expected(v, lo, hi) and type(got) is type(_expected(v, lo, hi)), code
        assert "min(" not in code and "max(" not in code


def test_a_constant_is_clamped_when_generating():
    out: list[str] = []
    assert PlainForms.clamped(_Lines(), out, 0, "0", "-30", "40") == "0"  # type: ignore[arg-type]
    assert PlainForms.clamped(_Lines(), out, 0, "55", "0", "40") == "40"  # type: ignore[arg-type]
    assert PlainForms.clamped(_Lines(), out, 0, "-5", "0", None) == "0"  # type: ignore[arg-type]
    assert out == []


def test_bounds_read_from_a_record_stay_min_and_max():
    """``lo`` above ``hi`` (a record's own bounds may cross): ``hi`` wins, as before."""
    for v in (-3, 2, 9):
        got, code = _run("x", "lo", "hi", {"x": v, "lo": 5, "hi": 1})
        assert got == min(max(v, 5), 1) and "min(max(" in code


def _s(b: int | None) -> str | None:
    return None if b is None else str(b)
