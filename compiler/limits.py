"""The compiler's limits on the size and shape of its input (documented in docs/errors.md).

Rules written by hand stay far below every one of them; they are there so that a mistake or a
hostile file ends in a positioned error instead of a crash (Python's recursion limit, its
4,300-digit limit on converting numbers) or an endless run (YAML aliases that expand
exponentially). Each limit is checked where the input is read: the YAML loader, the effect
parser.
"""

from __future__ import annotations

__all__ = [
    "MAX_ALIAS_VALUES",
    "MAX_BLOCK_DEPTH",
    "MAX_DICE",
    "MAX_DIE_SIDES",
    "MAX_EXPR_DEPTH",
    "MAX_NUMBER_DIGITS",
    "MAX_YAML_DEPTH",
]

#: digits in a whole number, in YAML or in effect code
MAX_NUMBER_DIGITS = 100

#: blocks (``if``, ``for``, ``while``, ``match``, ``simultaneously``...) inside one another in
#: effect code; CPython itself refuses more than 20 nested loops in the code we generate
MAX_BLOCK_DEPTH = 16

#: operators, calls, brackets and ``not`` inside one another in one expression; a chain such as
#: ``a + b + c`` counts one level per operator
MAX_EXPR_DEPTH = 64

#: lists and mappings inside one another in a YAML file
MAX_YAML_DEPTH = 64

#: values (scalars, lists, mappings) that aliases (``*name``) may add to one YAML file
MAX_ALIAS_VALUES = 10_000

#: dice rolled together, and sides of a die, in a table's ``dice: NdM`` (its distribution is
#: computed exactly)
MAX_DICE = 10
MAX_DIE_SIDES = 100
