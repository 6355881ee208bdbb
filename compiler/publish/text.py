"""Texts as a player reads them: labels in the game's spelling, scalars, rules `doc`s without
the engine's asides."""

from __future__ import annotations

import re
from fractions import Fraction
from typing import Any


def humanize(key: Any) -> str:
    text = str(key)
    if "_" in text or text.islower():
        text = text.replace("_", " ")
        text = text[:1].upper() + text[1:]
    return text


def fmt_scalar(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else str(value.numerator)
    return str(value)


#: English spellings of words in names; a game adds its own terms (`words:` in game.yaml)
WORDS = {"setup": "set-up"}


def readable_label(
    key: Any, titles: dict[str, str] | None = None, spelled: dict[str, str] | None = None
) -> str:
    """A readable label for a field or id: its declared `title`, else its words, spelled as
    the game says (`words:` in game.yaml): vp_max -> "VP max" with `words: {vp: VP}`."""
    if titles and str(key) in titles:
        return titles[str(key)]
    spelled = WORDS if spelled is None else spelled
    words = [w for w in str(key).replace("-", "_").split("_") if w]
    text = " ".join(spelled.get(w.lower(), w) for w in words)
    return text[:1].upper() + text[1:]


def doc_of(rec: Any) -> str:
    if isinstance(rec, dict) and rec.get("doc"):
        return " ".join(str(rec["doc"]).split())
    return ""


#: a parenthesis that only names the engine's own things or rules-index ids: "(choice
#: end_by_agreement)", "(constant report_board_changes)", "(TR-DIP-UKRAINE-04/05)"
_ENGINE_NOTE = re.compile(
    r"\s*\((?:(?:choice|constant|function|procedure|step|global)s?\s+[a-z][a-z0-9_]*"
    r"|[A-Z]+(?:-[A-Za-z0-9./]+)+(?:,\s*[A-Z]+(?:-[A-Za-z0-9./]+)+)*)\)"
)


#: a parenthesis that names an engine identifier ("(at most reports_per_turn changes ...)")
_ENGINE_ASIDE = re.compile(r"\s*\([^()]*\b[a-z][a-z0-9]*_[a-z0-9_]+\b[^()]*\)")


def player_text(text: str) -> str:
    """A rules `doc` as a player reads it: one line, without parentheses that only name the
    engine's choices and constants or rules-index ids, or that speak of engine identifiers."""
    text = _ENGINE_NOTE.sub("", " ".join(str(text or "").split()))
    return _ENGINE_ASIDE.sub("", text)


def norm(text: str) -> str:
    return "".join(ch for ch in text.lower() if ch.isalnum())


#: a name in backquotes in a rules `doc` ("once someone has `goal`")
_QUOTED_NAME = re.compile(r"`([A-Za-z_][A-Za-z0-9_]*)`")


def with_values(text: str, values: dict[str, tuple[str, str]]) -> str:
    """A rules `doc` with the constants it names in backquotes as a player reads them, under
    their title with their value: "has `goal`" -> "has Points to win (10)". `values`: name ->
    (title, value as printed); other quoted names are left to the markup (`inline_markup`)."""

    def one(m: re.Match[str]) -> str:
        found = values.get(m.group(1))
        return f"{found[0]} ({found[1]})" if found else m.group(0)

    return _QUOTED_NAME.sub(one, text)
