"""Moved to :mod:`rulecraft.compiler.tables.programs`; this name stays while the code generator
(``codegen/``, restructured in parallel) still imports it from here."""

from __future__ import annotations

from .tables.programs import add_table_programs, has_routine, routine_name

__all__ = ["add_table_programs", "has_routine", "routine_name"]
