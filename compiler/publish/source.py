"""A game for a sheet: its checked model (`compile_project`, once), the data of the documents
the model was built from, its tables' printed layout, and YAML values as printable trees."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .text import fmt_scalar, humanize
from .views import Node, SheetError


def default_rules_root() -> Path:
    """The repository's `rules/` folder (the compiler lives in `<repo>/compiler/`)."""
    return Path(__file__).resolve().parents[2] / "rules"


def list_games(rules_root: Path | None = None) -> list[str]:
    """The games that have a folder under the rules root, sorted."""
    root = Path(rules_root) if rules_root else default_rules_root()
    if not root.is_dir():
        return []
    return sorted(p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith("."))


_SKIP_KEYS = frozenset(
    {
        "do",
        "effect",
        "effects_code",
        "body",
        "params",
        "returns",
        "when",
        "rules",
        "schema",
        "visible",
        "type",
        "version",
        "game",
        "values",
        "per_seat",
        "adjacent",
        "enums",
        "state",
        "playable",
        "unplayable",
    }
)


def _readable(value: Any) -> Any:
    """Drops code and machinery keys; a mapping that only documents itself becomes its `doc`."""
    if isinstance(value, dict):
        kept = {k: _readable(v) for k, v in value.items() if str(k) not in _SKIP_KEYS}
        if "doc" in kept and all(k in ("doc", "value") for k in kept):
            doc = str(kept["doc"])
            return f"{fmt_scalar(kept['value'])} — {doc}" if "value" in kept else doc
        return {k: v for k, v in kept.items() if v not in ({}, [], None)}
    if isinstance(value, list):
        return [_readable(v) for v in value]
    return value


def node_of(value: Any, depth: int = 0) -> Node:
    """Free-form YAML (dicts, lists, scalars) as a printable tree; very deep data is flattened."""
    if depth == 0:
        value = _readable(value)
    if (
        isinstance(value, dict)
        and value
        and all(not isinstance(v, (dict, list)) for v in value.values())
    ):
        if len(value) > 1 or depth > 1:  # a record of scalars reads best on one line
            return Node("text", text=_join_fields(value))
    if isinstance(value, list) and value and all(not isinstance(v, (dict, list)) for v in value):
        if sum(len(fmt_scalar(v)) for v in value) < 160 and not any(" " in str(v) for v in value):
            return Node("text", text=", ".join(fmt_scalar(v) for v in value))
    if isinstance(value, dict):
        if depth > 6:
            return Node("text", text=", ".join(f"{k}: {fmt_scalar(v)}" for k, v in value.items()))
        return Node("map", items=[(humanize(k), node_of(v, depth + 1)) for k, v in value.items()])
    if isinstance(value, list):
        ordered = all(not isinstance(v, (dict, list)) for v in value) and len(value) > 1
        return Node("list", items=[node_of(v, depth + 1) for v in value], ordered=ordered)
    return Node("text", text=fmt_scalar(value))


def _join_fields(value: dict[Any, Any]) -> str:
    """ "Pick: Both players pick ... time. Reveal: ..." — no ".;" where a text ends a sentence."""
    out = ""
    for k, v in value.items():
        if out:
            out += " " if out.endswith((".", "!", "?")) else "; "
        out += f"{humanize(k)}: {fmt_scalar(v)}"
    return out


_TITLE_KEYS = ("title", "name", "label", "id")


def _title_of(value: Any, fallback: str) -> str:
    if isinstance(value, dict):
        for key in _TITLE_KEYS:
            if isinstance(value.get(key), (str, int)):
                return str(value[key])
    return fallback


def without_title(value: Any) -> Any:
    if isinstance(value, dict):
        for key in _TITLE_KEYS:
            if isinstance(value.get(key), (str, int)):
                return {k: v for k, v in value.items() if k != key}
    return value


def entries(doc: Any, list_keys: tuple[str, ...]) -> list[tuple[str, Any]]:
    """The entries of a cards/scenarios document: a list, a mapping by id, or one under a key."""
    if isinstance(doc, dict):
        for key in list_keys:
            if key in doc and isinstance(doc[key], (list, dict)):
                return entries(doc[key], ())
        items = [(str(k), v) for k, v in doc.items() if k not in ("game", "schema", "version")]
        return [(_title_of(v, humanize(k)), v) for k, v in items]
    if isinstance(doc, list):
        return [(_title_of(v, f"#{i + 1}"), v) for i, v in enumerate(doc)]
    return []


def scenario_ids(model: Any) -> dict[str, tuple[str, Any]]:
    """Scenario id -> (title, data as its file gives it) of every scenario of the model."""
    return {
        sid: (_title_of(sc.doc.data, humanize(sid)), sc.doc.data)
        for sid, sc in model.scenarios.items()
    }


def document(model: Any, name: str) -> Any:
    """The data of one of the model's documents (``"game.yaml"``, ``"cards.yaml"``), as loaded
    and validated by the pipeline; None if the game has no such file."""
    doc = model.documents.get(name)
    return doc.data if doc is not None else None


def table_docs(game_dir: Path) -> list[tuple[str, dict[str, Any], int]]:
    """(id, printed layout, position) of every table of the game, in sheet order (`order:`, then
    file order); see `game_tables`."""
    model = game_model(game_dir.parent, game_dir.name).model
    return [(tid, raw, i) for i, (tid, raw, _table) in enumerate(game_tables(model))]


def game_tables(model: Any) -> list[tuple[str, dict[str, Any], Any]]:
    """(id, printed layout, table) of every table of the model, in sheet order: the tables the
    compiler loaded and checked (`tables.load_tables`), each with the data it was built from
    (the loaded document it keeps, not a second reading of the file); ordered by the table's
    `order`, then file order."""
    loaded = model.tables
    out = [(tid, t.doc.get(t.ypath), t) for tid, t in loaded.items()]
    order = {tid: i for i, tid in enumerate(loaded)}
    out.sort(key=lambda x: (1_000_000 if x[2].order is None else x[2].order, order[x[0]]))
    return out


def compiled_tables(game_dir: Path) -> dict[str, Any]:
    """The game's tables, from its model (see `game_model`)."""
    return dict(game_model(game_dir.parent, game_dir.name).model.tables)


@dataclass
class GameModel:
    """What the pipeline made of a game: its model (`ir.Game`: the game before any scenario,
    with every scenario's starting values) and, for a game with an engine, each scenario
    resolved and checked, by id."""

    model: Any
    resolved: dict[str, Any]


def game_model(root: Path, game: str) -> GameModel:
    """The game's checked model: one run of the compiler's pipeline over `root/<game>`
    (`compile_project` without code generation). Any error of the rules is a `SheetError`
    naming the first. The model is kept while the game's files do not change, so that the
    sheets of one game built in one process share one run."""
    rules = Path(root).resolve()  # a project's rules folder, whatever its name
    key = (rules, game, _fingerprint(rules / game))
    if key in _MODELS:
        _MODELS[key] = _MODELS.pop(key)  # the most recently used is evicted last
        return _MODELS[key]
    from ..project import Project, ProjectError, compile_project, new_sink

    project = Project(rules.parent, rules, rules.parent / "generated", "generated")
    sink = new_sink(project)
    try:
        result = compile_project(project, sink, [game], generate=False)
    except ProjectError as exc:
        raise SheetError(str(exc)) from None
    errors = [d.header() for d in sink.diagnostics if d.severity == "error"]
    if errors or game not in result.models:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        first = errors[0] if errors else "the rules do not compile"
        raise SheetError(f"{first}{more}")
    prefix = f"{result.models[game].id}/"
    found = GameModel(
        result.models[game],
        {k[len(prefix) :]: g for k, g in result.games.items() if k.startswith(prefix)},
    )
    while len(_MODELS) >= KEPT_MODELS:
        del _MODELS[next(iter(_MODELS))]
    _MODELS[key] = found
    return found


#: models of games by (rules folder, game, the state of the game's files), the least recently
#: used first; see `game_model`
_MODELS: dict[tuple[Path, str, tuple[Any, ...]], GameModel] = {}
#: the models kept: the five bundled games' and a few projects' (the largest, a hex map of
#: 2,400 hexes, is ~100 MB and takes seconds to build; with four kept, the sheets of five games
#: built it again and again)
KEPT_MODELS = 8


def _fingerprint(game_dir: Path) -> tuple[Any, ...]:
    """The name, size and time of change of every file in the game's folder."""
    out = []
    for path in sorted(game_dir.rglob("*")):
        try:
            st = path.stat()
        except OSError:
            continue
        out.append((path.relative_to(game_dir).as_posix(), st.st_size, st.st_mtime_ns))
    return tuple(out)
