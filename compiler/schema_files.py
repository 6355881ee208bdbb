"""The JSON Schema files of the installed rulecraft, and whether a project's copy is theirs.

Standard library only: ``rulecraft compile`` checks a project's ``schemas/`` on every run,
before it knows whether anything needs the validator (:mod:`.schema`, which imports
jsonschema); :mod:`.schema` re-exports both functions.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["installed_schemas", "stale_schemas"]


def installed_schemas() -> list[Path]:
    """The JSON Schemas of the installed rulecraft."""
    return sorted((Path(__file__).resolve().parents[1] / "schemas").glob("*.schema.json"))


def stale_schemas(root: Path) -> list[str]:
    """The files of ``root/schemas/`` that differ from the installed rulecraft's (a project
    made by an older rulecraft); [] when there is no such folder or it is the installed one."""
    folder = root / "schemas"
    ours = installed_schemas()
    if not folder.is_dir() or not ours or folder.resolve() == ours[0].parent:
        return []
    return [
        p.name
        for p in ours
        if not (folder / p.name).is_file() or (folder / p.name).read_bytes() != p.read_bytes()
    ]
