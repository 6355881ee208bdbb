"""Rendering a sheet: HTML through the Jinja2 templates (`templates/sheet*.j2`) and PDF through
WeasyPrint, byte-for-byte reproducible."""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jinja2
import markupsafe

from .build import build_sheet
from .views import SheetError

PAPERS = {"a4": "A4", "letter": "letter"}


_FIXED_EPOCH = "946684800"


def _env() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(Path(__file__).with_name("templates"))),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
    )
    env.filters["md"] = inline_markup
    return env


_CODE = re.compile(r"`([^`]+)`")
_STRONG = re.compile(r"\*\*([^*]+)\*\*")


def inline_markup(text: object) -> markupsafe.Markup:
    """The inline markdown of a rules text as HTML, the text escaped: `code` and **strong**
    (a single * stays: the rulebooks use it as a footnote mark)."""
    html = str(markupsafe.escape(str(text)))
    html = _CODE.sub(r"<code>\1</code>", html)
    return markupsafe.Markup(_STRONG.sub(r"<strong>\1</strong>", html))


def _css_string(text: str) -> markupsafe.Markup:
    """Text for a CSS string literal inside <style>: escaped for CSS, not for HTML."""
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")
    return markupsafe.Markup(text.replace("<", "\\3C "))


def render_html(
    game: str,
    scenario: str | None = None,
    paper: str = "a4",
    *,
    rules_root: Path | None = None,
    record: str | Path | None = None,
    pdf: bool = False,
) -> str:
    """The reference sheet of `game` (optionally one scenario) as a standalone HTML page; with
    `record` (a saved game's file), the game's record forms filled in from it. With `pdf`,
    the page `html_to_pdf` prints: a board's map tiles are images (in a browser they are
    inline SVG, each hex with its name as a tooltip)."""
    if paper not in PAPERS:
        raise SheetError(f"unknown paper '{paper}' (use: {', '.join(PAPERS)})")
    sheet = build_sheet(game, scenario, rules_root, record)
    env = _env()
    running = sheet.title + (f" — {sheet.scenario_title}" if sheet.scenario_title else "")
    css = env.get_template("sheet.css.j2").render(
        page_size=PAPERS[paper],
        record=sheet.record is not None,
        running_title=_css_string(running),
        running_source=_css_string(
            "rulecraft record form" if sheet.record else "rulecraft reference sheet"
        ),
    )
    return env.get_template("sheet.html.j2").render(
        sheet=sheet, css=markupsafe.Markup(css), pdf=pdf
    )


@contextlib.contextmanager
def _fixed_font_timestamps() -> Iterator[None]:
    """fontTools stamps each embedded font subset with the time unless SOURCE_DATE_EPOCH is set."""
    old = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = _FIXED_EPOCH
    try:
        yield
    finally:
        if old is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = old


def layout(html: str) -> Any:
    """The sheet laid out in pages by WeasyPrint (a ``weasyprint.Document``: ``len(.pages)``),
    before any PDF is written; `pdf_of` writes it."""
    try:
        import weasyprint
    except ImportError as exc:  # pragma: no cover - depends on the installation
        raise SheetError(
            f"PDF output needs WeasyPrint and its system libraries ({exc}): "
            "pip install 'rulecraft[sheets]', or --format html"
        ) from None
    base = str(Path(__file__).with_name("templates"))
    return weasyprint.HTML(string=html, base_url=base).render()


def pdf_of(document: Any) -> bytes:
    """A laid-out sheet (`layout`) as PDF bytes, reproducibly (same HTML, same bytes)."""
    with _fixed_font_timestamps():
        return bytes(document.write_pdf(pdf_identifier=False))


def html_to_pdf(html: str) -> bytes:
    """HTML to PDF through WeasyPrint, reproducibly (same HTML, same bytes)."""
    return pdf_of(layout(html))


def render_pdf(
    game: str,
    scenario: str | None = None,
    paper: str = "a4",
    *,
    rules_root: Path | None = None,
    record: str | Path | None = None,
) -> bytes:
    """The reference sheet as PDF bytes (byte-for-byte reproducible); `record` as for
    `render_html`."""
    return html_to_pdf(
        render_html(game, scenario, paper, rules_root=rules_root, record=record, pdf=True)
    )
