"""Printable reference sheets: a game's tables, sequence of play, cards and set-up as HTML or PDF.

The sheet is built in two steps. `build_sheet` reads the game's checked model (one run of the
compiler's pipeline without code generation: its tables, flow, cards and scenarios, and the
validated data of the files it was built from; never the YAML a second time) into a small view
model of plain dataclasses; `render_html` renders that model through the Jinja2 templates
`templates/sheet*.j2` with a print stylesheet, and `render_pdf` turns the HTML into PDF through
WeasyPrint.

Printed, assumed and gap cells are told apart everywhere: assumed cells are italic and hatched with
a numbered dagger and listed with their reasons in a footnote; gaps are shown as gaps, never filled.
For die-driven columns the sheet prints the exact result probabilities computed by the table.

The PDF is byte-for-byte reproducible: no dates or random identifiers are written, and the font
subsets WeasyPrint embeds get a fixed timestamp (fontTools reads `SOURCE_DATE_EPOCH`).

With a saved game (`record=`, `rulecraft sheet --record SAVE.json`) the sheet is the game's record
forms (`kind: form` tables) only, their cells filled in from the save as the tables say (`seat:` on
columns, `fill:`/`format:`/`skip_zero:` on rows, `when:` on blocks; see docs/sheets.md). The save
is read as JSON by field name (`g`, `p` by seat); the game's engine is not needed.

This module is the public face of the publishing wing; the work is done in its job modules:
`views` (the dataclasses), `source` (the game's checked model and its documents' data),
`table_views` (tables as printed), `scenarios` (scenario blocks), `compare` (scenarios side by
side), `records` (saves and record forms), `build` (`build_sheet`) and `render` (HTML and PDF).
"""

from __future__ import annotations

from .build import build_sheet
from .records import read_save
from .render import PAPERS, html_to_pdf, layout, pdf_of, render_html, render_pdf
from .source import compiled_tables as _compiled_tables  # noqa: F401 - tests use the old names
from .source import default_rules_root, list_games
from .source import table_docs as _table_docs  # noqa: F401
from .table_views import odds_for as _odds_for  # noqa: F401
from .table_views import rule_ranges as _rule_ranges  # noqa: F401
from .views import (
    CompareRow,
    CompareTable,
    Comparison,
    SavedRecord,
    SaveFileError,
    ScenarioView,
    Sheet,
    SheetError,
    TableView,
)

__all__ = [
    "PAPERS",
    "CompareRow",
    "CompareTable",
    "Comparison",
    "SaveFileError",
    "SavedRecord",
    "ScenarioView",
    "Sheet",
    "SheetError",
    "TableView",
    "build_sheet",
    "default_rules_root",
    "html_to_pdf",
    "layout",
    "list_games",
    "pdf_of",
    "read_save",
    "render_html",
    "render_pdf",
]
