"""What a player typed at the terminal, read as an option, and when it is none, why not:
"did you mean", the options an ambiguous start could be, why a named thing is not offered,
what an allocation or a report got wrong."""

from __future__ import annotations

import difflib
from typing import Any

from ..game import Decision
from ..layout import PENDING
from ..machine import GameError
from ..numbers import parse_int
from ..spec import GameSpec

__all__ = [
    "match",
    "why_not",
    "values_are_numbers",
    "number",
    "split_of",
    "card_named",
    "as_offer",
    "offer_refusal",
    "allocation",
    "common_prefix",
    "find_target",
]


def number(text: str) -> int | None:
    """A number a player typed: ASCII digits only, at most nine of them; None for anything
    else."""
    return parse_int(text, digits=9)


def _short(option_id: str) -> str:
    return option_id.partition(":")[2] or option_id


def values_are_numbers(d: Decision) -> bool:
    """Whether some option is itself a number (DPs to spend: ``number:0``, ``number:1``): then
    options are not numbered, and a typed number is the value, never the place in a list."""
    if d.kind in ("propose", "allocate", "report"):
        return False
    return any(
        number(_short(o.id)) is not None or number(o.label.strip()) is not None for o in d.options
    )


def split_of(game: Any, d: Decision) -> tuple[Any, str]:
    """The options of a pending allocation and the kind of its targets."""
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            return raw[2], game.spec.sites[raw[1]].options[6:]
    raise GameError("no allocation pending")


def as_offer(text: str) -> str:
    """A typed offer as an option id (``units:a>b=2`` or ``offer:units:a>b=2``)."""
    return text if text.startswith("offer:") else "offer:" + text.replace(" ", "")


def offer_refusal(game: Any, d: Decision, text: str) -> str:
    if ":" not in text:
        return (
            f"{_quoted(text)} is not an offer (good:giver>receiver=amount); type pass to make "
            "none, goods to list the goods."
        )
    option = as_offer(text)
    for raw in game.raw[PENDING] or ():
        if raw[0] == d.player:
            return game.spec.why_refused(raw, option, game.raw) or "not an offer"
    return "not an offer"


def match(text: str, d: Decision, game: Any = None) -> str | None:
    """The id of the option ``text`` names, or None."""
    if d.kind == "propose" and game is not None:
        if text in ("pass", "none"):
            return "pass"
        option = as_offer(text)
        return option if game.is_legal(d.player, option) else None
    if d.kind == "allocate" and game is not None:
        return allocation(text, d, game)
    if d.kind == "report" and game is not None:
        option = (
            text if text in ("done", "none") or text.startswith("report:") else "report:" + text
        )
        option = "done" if option == "none" else option
        return option if game.is_legal(d.player, option) else None
    k = number(text)
    if k is not None:
        if values_are_numbers(d):
            hits = [o.id for o in d.options if k in (number(_short(o.id)), number(o.label))]
            return hits[0] if len(hits) == 1 else None
        if 1 <= k <= len(d.options):
            return d.options[k - 1].id
    for opt in d.options:
        if opt.id == text:
            return opt.id
    found = _by_name(text, d)
    return found[0] if len(found) == 1 else None


def _by_name(text: str, d: Decision) -> list[str]:
    """The option a label names (any case), or the options whose label or id (without its
    ``kind:``) start with ``text``: ``brandenburg``, ``Bran``, ``march``."""
    want = text.strip().lower()
    if not want:
        return []
    names = [(opt.id, opt.label.lower(), _short(opt.id).lower()) for opt in d.options]
    exact = [oid for oid, label, short in names if want in (label, short)]
    if len(exact) == 1:
        return exact
    return list(
        dict.fromkeys(
            oid for oid, label, short in names if label.startswith(want) or short.startswith(want)
        )
    )


def card_named(spec: GameSpec, text: str) -> int | None:
    """The card whose id or name is ``text`` (any case), if one is."""
    want = text.strip().lower()
    for i, cid in enumerate(spec.ids.get("card", ())):
        if want in (cid.lower(), spec.name_of("card", i).lower()):
            return i
    return None


def _named(spec: GameSpec, text: str) -> tuple[str, int] | None:
    """The thing of the game (a player, a card, a record) whose id or name is ``text``."""
    want = text.strip().lower()
    for kind, ids in spec.ids.items():
        for i, oid in enumerate(ids):
            if want in (oid.lower(), spec.name_of(kind, i).lower()):
                return kind, i
    return None


def _quoted(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _suggest(want: str, d: Decision) -> list[str]:
    """Labels of the options close to ``want`` (a typo)."""
    by_key: dict[str, str] = {}
    for o in d.options:
        by_key.setdefault(o.label.lower(), o.label)
        by_key.setdefault(_short(o.id).lower(), o.label)
    close = difflib.get_close_matches(want.lower(), list(by_key), n=3, cutoff=0.6)
    return list(dict.fromkeys(by_key[c] for c in close))


def _or(words: list[str], word: str = "or") -> str:
    if not words:
        return "nothing"
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} {word} {words[-1]}"


def why_not(text: str, d: Decision, game: Any) -> str:
    """Why ``text`` names no option of ``d``, and what to type instead (one message)."""
    spec = game.spec
    if d.kind == "allocate":
        return _why_not_allocation(text, d, game)
    if d.kind == "report":
        return _why_not_report(text, d, game)
    k = number(text)
    if k is not None:
        if values_are_numbers(d):
            values = [o.label for o in d.options]
            return f"{k} is not one of the values offered: type {_or(values)}."
        return f"No option {k}; type a number from 1 to {len(d.options)}, or help."
    starts = _by_name(text, d)
    if len(starts) > 1:
        labels = {o.id: o.label for o in d.options}
        shown = "; ".join(f"{labels[s]} [{s}]" for s in starts[:8])
        more = f" and {len(starts) - 8} more" if len(starts) > 8 else ""
        return f"{_quoted(text)} could be {shown}{more}: type more of it, or its number."
    named = _named(spec, text)
    if named is not None:
        kind, i = named
        return not_offered(spec, kind, i, d)
    close = _suggest(text, d)
    if close:
        return f"No option {_quoted(text)}; did you mean {_or(close)}?"
    return f"No option {_quoted(text)}; type a number from 1 to {len(d.options)}, or help."


def not_offered(spec: GameSpec, kind: str, i: int, d: Decision) -> str:
    """Why ``i`` of ``kind`` is not among the options, in the rules' words where they give
    them (a card's ``unplayable:``), else the condition the rules filter the options by
    (where they do) and what this decision does offer."""
    name = spec.name_of(kind, i)
    if kind == "card":
        why = spec.data.get("unplayable_card", ())
        if i < len(why) and why[i]:
            return f"{name} is not offered now: {why[i]}."
    cond = spec.site_filters.get(d.site)
    only = f" only those for which `{cond}` holds" if cond else ""
    if len(d.options) <= 12:
        return (
            f"{name} is not one of the options of this decision ({d.prompt}); the rules offer"
            f"{only}{':' if only else ''} {_or([o.label for o in d.options])}."
        )
    return (
        f"{name} is not one of the {len(d.options)} options of this decision ({d.prompt})"
        f"{'; the rules offer' + only if only else ''}."
    )


def _why_not_allocation(text: str, d: Decision, game: Any) -> str:
    spec = game.spec
    split, kind = split_of(game, d)
    ids = [spec.target_id(kind, t) for t in split.targets]
    total = 0
    for part in text.replace(",", " ").split():
        name, eq, n = part.partition("=")
        found = find_target(name, ids, spec)
        prefix = common_prefix(ids)
        if len(found) > 1:
            shown = [i[len(prefix) :] for i in found]
            return f"{name!r} could be {_or(shown)}: type more of the name."
        if not found:
            named = _named(spec, name)
            short = [i[len(prefix) :] for i in ids]
            close = difflib.get_close_matches(name, short, n=3, cutoff=0.6)
            if close and not named:
                return f"No target {name!r}; did you mean {_or(close)}?"
            what = spec.name_of(*named) if named else repr(name)
            return (
                f"{what} is not a target of this allocation now: the targets are "
                f"{_or(short, 'and')}."
            )
        if not eq:
            return f"Give {name} a number of points: {name}=1."
        points = number(n)
        if points is None:
            return f"{_quoted(n)} is not a number of points: {name}=1."
        if points > split.max_each:
            return (
                f"{name}={points} is over the limit: at most {split.max_each} "
                f"{'point' if split.max_each == 1 else 'points'} on one target."
            )
        total += points
    if total > split.points:
        return f"{total} points in all, over the {split.points} you have to place."
    return f"No allocation {_quoted(text)}; type target=points ... (see above), or none."


def _why_not_report(text: str, d: Decision, game: Any) -> str:
    spec = game.spec
    for raw in game.raw[PENDING] or ():
        if raw[0] != d.player:
            continue
        facts: dict[str, list[str]] = {}
        for k, values, now in raw[2].facts:
            where, _, _ = spec.report_id((k, now))[7:].rpartition("=")
            facts[where] = [spec.report_id((k, v))[7:].rpartition("=")[2] for v in values]
        where, eq, value = text.removeprefix("report:").rpartition("=")
        if not eq:
            where = text.removeprefix("report:")
        if where not in facts:
            close = difflib.get_close_matches(where, list(facts), n=3, cutoff=0.6)
            hint = f"did you mean {_or(close)}? " if close else ""
            return f"No fact {_quoted(where)}; {hint}type facts to list them, or done."
        if not eq:
            return f"Write {where}=VALUE: {_values(facts[where])}."
        return f"{where} cannot be {_quoted(value)}: {_values(facts[where])}."
    return f"No fact {_quoted(text)}; type facts to list them, or done."


def common_prefix(ids: list[str]) -> str:
    """What every target id starts with, up to an underscore (``germany_``), if more than
    one target shares it."""
    if len(ids) < 2:
        return ""
    first = ids[0]
    cut = first.find("_") + 1
    return first[:cut] if cut and all(i.startswith(first[:cut]) for i in ids) else ""


def find_target(name: str, ids: list[str], spec: GameSpec) -> list[str]:
    """The target ids ``name`` may mean: the id itself, the id without the prefix all share
    (``spain`` for ``germany_spain``), else, unless ``name`` is the exact name of something
    else of the game (``france`` is not ``vichy_france``), the ids that contain it."""
    if name in ids:
        return [name]
    prefix = common_prefix(ids)
    short = [i[len(prefix) :] for i in ids]
    if name in short:
        return [ids[short.index(name)]]
    if not name or _named(spec, name) is not None:
        return []
    return [i for i, sh in zip(ids, short, strict=True) if name in sh]


def _values(words: list[str]) -> str:
    """The values a fact may take, as a player reads them (a range of numbers as one)."""
    nums = [number(w) for w in words]
    if len(words) > 3 and all(n is not None for n in nums):
        lo, hi = min(nums), max(nums)  # type: ignore[type-var]
        if len(set(nums)) == hi - lo + 1:  # type: ignore[operator]
            return f"a number from {lo} to {hi}"
    more = f" (and {len(words) - 12} more)" if len(words) > 12 else ""
    return f"one of {_or(words[:12])}{more}"


def allocation(text: str, d: Decision, game: Any) -> str | None:
    """``bulgaria=2 greece=1`` (or an ``alloc:`` id) as the id of a legal allocation."""
    if text.startswith("alloc:"):
        return text if game.is_legal(d.player, text) else None
    if text in ("none", "nothing", "0"):
        return "alloc:none"
    split, kind = split_of(game, d)
    ids = [game.spec.target_id(kind, t) for t in split.targets]
    counts: dict[str, int] = {}
    for part in text.replace(",", " ").split():
        name, eq, n = part.partition("=")
        points = number(n)
        if not eq or points is None:
            return None
        found = find_target(name, ids, game.spec)
        if len(found) != 1 or found[0] in counts:
            return None
        if points:
            counts[found[0]] = points
    parts = [f"{i}={counts[i]}" for i in ids if i in counts]
    option = "alloc:" + (",".join(parts) if parts else "none")
    return option if game.is_legal(d.player, option) else None
