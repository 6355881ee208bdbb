"""Reading a game's rules folder for a sheet: the game's files, its tables' printed layout and
the checked model (`compile_project`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from rulecraft.runtime.files import FileReadError, read_file

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


def read_yaml(path: Path) -> Any:
    try:
        text = read_file(path).decode("utf-8")
        return yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except FileReadError as exc:
        raise SheetError(f"{path}: cannot read: {exc.why}") from None
    except (UnicodeDecodeError, yaml.YAMLError) as exc:
        raise SheetError(f"{path}: cannot read: {str(exc).splitlines()[0]}") from None


def optional_docs(game_dir: Path, stem: str) -> list[tuple[Path, Any]]:
    """`<stem>.yaml` and every YAML file in `<stem>/`, sorted by path; missing ones are skipped."""
    found: list[Path] = []
    for ext in ("yaml", "yml"):
        if (game_dir / f"{stem}.{ext}").is_file():
            found.append(game_dir / f"{stem}.{ext}")
    sub = game_dir / stem
    if sub.is_dir():
        found.extend(sorted(p for p in sub.rglob("*.y*ml") if p.is_file()))
    return [(p, read_yaml(p)) for p in found]


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


def scenario_ids(docs: list[tuple[Path, Any]]) -> dict[str, tuple[str, Any]]:
    """Scenario id -> (title, data) from the scenarios documents."""
    out: dict[str, tuple[str, Any]] = {}
    for path, doc in docs:
        if (
            isinstance(doc, dict)
            and ("scenario" in doc or "id" in doc)
            and path.parent.name == "scenarios"
        ):
            sid = str(doc.get("scenario") or doc.get("id"))
            out[sid] = (_title_of(doc, humanize(sid)), doc)
            continue
        if isinstance(doc, dict) and isinstance(doc.get("scenarios"), (list, dict)):
            doc = doc["scenarios"]
        if isinstance(doc, dict):
            for k, v in doc.items():
                if k in ("game", "schema", "version"):
                    continue
                sid = str(v.get("id", k)) if isinstance(v, dict) else str(k)
                out[sid] = (_title_of(v, humanize(k)), v)
        elif isinstance(doc, list):
            for i, v in enumerate(doc):
                sid = (
                    str(v.get("id", v.get("scenario", i + 1)))
                    if isinstance(v, dict)
                    else str(i + 1)
                )
                out[sid] = (_title_of(v, humanize(sid)), v)
    return out


def table_docs(game_dir: Path) -> list[tuple[str, dict[str, Any], int]]:
    """(id, printed layout, position) of every table of the game, in sheet order (`order:`, then
    file order); see `game_tables`."""
    return [(tid, raw, i) for i, (tid, raw, _table) in enumerate(game_tables(game_dir))]


def game_tables(game_dir: Path) -> list[tuple[str, dict[str, Any], Any]]:
    """(id, printed layout, model) of every table of the game, in sheet order: the tables the
    compiler loads and checks (`tables.load_tables`), each with the data it was built from
    (the loaded document it keeps, not a second reading of the file); ordered by the model's
    `order`, then file order."""
    loaded = compiled_tables(game_dir)
    out = [(tid, t.doc.get(t.ypath), t) for tid, t in loaded.items()]
    order = {tid: i for i, tid in enumerate(loaded)}
    out.sort(key=lambda x: (1_000_000 if x[2].order is None else x[2].order, order[x[0]]))
    return out


def compiled_tables(game_dir: Path) -> dict[str, Any]:
    """The game's tables through `tables.load_tables`; its errors become a `SheetError`."""
    try:
        from .. import tables as tables_mod
    except ImportError:  # the tables stage is not there: sheets print without odds
        return {}
    sink = new_sink()
    result = tables_mod.load_tables(game_dir, sink)
    errors = sink_errors(sink)
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise SheetError(f"{errors[0]}{more}")
    return dict(result or {})


def new_sink() -> Any:
    from .. import diagnostics

    return diagnostics.DiagnosticSink()


def sink_errors(sink: Any) -> list[str]:
    diags = getattr(sink, "diagnostics", None)
    if diags is None:
        diags = getattr(sink, "items", None) or []
    out = []
    for d in diags:
        severity = str(getattr(d, "severity", "error")).lower()
        if "error" not in severity:
            continue
        header = getattr(d, "header", None)
        text = header() if callable(header) else (header or str(d))
        out.append(str(text).splitlines()[0])
    return out


def resolved_game(root: Path, game: str, scenario: str) -> Any:
    """The scenario as the compiler resolves it (its base with every overlay applied: the
    variants stage), or None for a game without an engine (tables only)."""
    if not (root / game / "flow.yaml").is_file():
        return None
    try:
        from ..project import Project, compile_project, new_sink
    except ImportError:  # pragma: no cover - the compiler is not there
        return None
    rules = Path(root).resolve()  # a project's rules folder, whatever its name
    project = Project(rules.parent, rules, rules.parent / "generated", "generated")
    sink = new_sink(project)
    result = compile_project(project, sink, [game], generate=False)
    if sink.has_errors:
        first = sink.render_all().strip().splitlines()[0]
        raise SheetError(f"{game}: the rules do not compile: {first}")
    return result.games.get(f"{game}/{scenario}")


def _strip_meta(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: v for k, v in value.items() if k not in ("game", "schema", "version")}
    return value
