"""Validating loaded documents against the JSON Schemas in ``schemas/``.

Every ``<name>.schema.json`` is loaded once into a crawled ``referencing.Registry`` (draft 2020-12),
so ``$ref`` between files by ``$id`` (``https://rulecraft.dev/schemas/<name>.schema.json``) resolves
without any retrieval. All errors of a document are reported at once, each at the node it is about,
in words a designer reads: "unknown key 'efect' in cards.move_1 (did you mean 'effect'?)". The
violated schema rule is named only in the hint.

A subschema may carry ``"x-error": "..."`` to replace the generated message for errors it raises
directly; ``{got}`` in it stands for the value found ("{got} is not one_by_one or side_by_side").
"""

from __future__ import annotations

import difflib
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from .diagnostics import DiagnosticSink
from .loader import Document, YPath, format_ypath

__all__ = ["SchemaStore", "SCHEMA_BASE"]

SCHEMA_BASE = "https://rulecraft.dev/schemas/"
_SUFFIX = ".schema.json"

_TYPE_WORDS = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "object": "a mapping (key: value)",
    "array": "a list",
    "null": "nothing (null)",
}


def _got(value: Any) -> str:
    """Describe a loaded value for a message: "the number 62", "the text 'abc'", "a list"."""
    if value is None:
        return "nothing (an empty value)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"the number {value!r}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)  # pragma: no cover


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _where(path: YPath) -> str:
    return f"in {format_ypath(path)}" if path else "at the top level"


def _suggest(word: Any, candidates: list[Any]) -> str:
    if not isinstance(word, str):
        return ""
    names = [c for c in candidates if isinstance(c, str)]
    close = difflib.get_close_matches(word, names, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def valid_keys(known: list[Any]) -> str:
    """The keys valid somewhere, for the hint of an unknown key: "valid keys: a, b, c"."""
    names = sorted(str(k) for k in known)
    return "valid keys: " + ", ".join(names) if names else "no keys are valid here"


def _join_or(words: list[str]) -> str:
    if len(words) <= 1:
        return "".join(words)
    return ", ".join(words[:-1]) + " or " + words[-1]


_DEFAULT: SchemaStore | None = None


class SchemaStore:
    """The JSON Schemas of the rules, loaded once, with a validator per schema name."""

    def __init__(self, directory: Path | None = None) -> None:
        """Load every ``*.schema.json`` in ``directory`` (default: ``rulecraft.schemas``)."""
        self._schemas: dict[str, dict[str, Any]] = {}
        self._files: dict[str, str] = {}
        self._validators: dict[str, Draft202012Validator] = {}
        pairs: list[tuple[str, Resource[Any]]] = []
        for name, filename, text in self._read(directory):
            try:
                schema = json.loads(text)
            except json.JSONDecodeError as exc:
                raise ValueError(f"schema {filename} is not valid JSON: {exc}") from exc
            Draft202012Validator.check_schema(schema)
            resource = Resource.from_contents(schema, default_specification=DRAFT202012)
            uri = SCHEMA_BASE + name + _SUFFIX
            pairs.append((uri, resource))
            if isinstance(schema, dict) and schema.get("$id") not in (None, uri):
                pairs.append((schema["$id"], resource))
            self._schemas[name] = schema
            self._files[name] = filename
        self.registry: Registry[Any] = Registry().with_resources(pairs).crawl()
        #: (schema name, text) of the documents found valid: a process that compiles the same
        #: files again (a designer's watch loop, the tests' scratch copies of a game) does
        #: not validate them again; a document is data parsed from its text alone
        self._valid: set[tuple[str, str]] = set()

    @classmethod
    def default(cls) -> SchemaStore:
        """The store of the bundled schemas, loaded (and each schema checked) once."""
        global _DEFAULT
        if _DEFAULT is None:
            _DEFAULT = cls()
        return _DEFAULT

    @staticmethod
    def _read(directory: Path | None) -> list[tuple[str, str, str]]:
        found: list[tuple[str, str, str]] = []
        if directory is None:
            root: Any = resources.files("rulecraft.schemas")
            entries = [e for e in root.iterdir() if e.name.endswith(_SUFFIX)]
        else:
            entries = [e for e in Path(directory).iterdir() if e.name.endswith(_SUFFIX)]
        for entry in sorted(entries, key=lambda e: e.name):
            found.append(
                (entry.name[: -len(_SUFFIX)], entry.name, entry.read_text(encoding="utf-8"))
            )
        return found

    def names(self) -> list[str]:
        """Names of the loaded schemas (``cards`` for ``cards.schema.json``), sorted."""
        return sorted(self._schemas)

    def schema(self, name: str) -> dict[str, Any]:
        """The JSON of schema ``name``."""
        return self._schemas[self._check_name(name)]

    def _check_name(self, name: str) -> str:
        if name not in self._schemas:
            known = ", ".join(repr(n) for n in self.names()) or "none"
            raise KeyError(f"unknown schema {name!r}{_suggest(name, self.names())}; known: {known}")
        return name

    def validator(self, name: str) -> Draft202012Validator:
        """The (cached) validator of schema ``name``, resolving ``$ref`` through the registry."""
        validator = self._validators.get(name)
        if validator is None:
            schema = self._schemas[self._check_name(name)]
            validator = Draft202012Validator(schema, registry=self.registry)
            self._validators[name] = validator
        return validator

    def validate(self, doc: Document, name: str, sink: DiagnosticSink) -> bool:
        """Validate ``doc`` against schema ``name``, reporting every error; True when valid."""
        key = (name, doc.text)
        if key in self._valid:
            return True
        validator = self.validator(name)
        ok = True
        for error in validator.iter_errors(doc.data):
            ok = False
            self._report(error, doc, name, sink)
        if ok:
            self._valid.add(key)
        return ok

    # -- turning jsonschema errors into diagnostics
    # -----------------------------------------------------

    def _report(
        self, error: ValidationError, doc: Document, name: str, sink: DiagnosticSink
    ) -> None:
        if error.validator in ("oneOf", "anyOf") and error.context:
            best = best_match([error])
            if best is not error:
                error = best
        hint = f"schema rule {self._files.get(name, name)}#/" + "/".join(
            str(p) for p in error.absolute_schema_path
        )
        for pos, message, *valid in self._describe(error, doc):
            # an unknown key: the keys that are valid there come first in the hint
            sink.error("schema", message, pos, f"{valid[0]} ({hint})" if valid else hint)

    def _describe(self, error: ValidationError, doc: Document) -> list[tuple[Any, ...]]:
        """(position, message) per problem; an unknown key adds the keys valid there."""
        path: YPath = tuple(error.absolute_path)
        kind = error.validator
        value = error.validator_value
        inst = error.instance
        schema = error.schema if isinstance(error.schema, dict) else {}
        custom = schema.get("x-error")
        on_key = "propertyNames" in error.relative_schema_path
        if on_key:
            pos = doc.key_pos(path + (inst,))
        else:
            pos = doc.pos(path)
        if isinstance(custom, str):
            return [(pos, custom.replace("{got}", _short(inst)))]
        prefix = f"key {_short(inst)}: " if on_key else ""
        subject = f"key {_short(inst)}" if on_key else _short(inst)
        last = path[-1] if path else None
        name = (
            f"{prefix}{last}"
            if isinstance(last, str) and not on_key
            else (prefix + "this value" if not on_key else f"key {_short(inst)}")
        )

        if kind == "additionalProperties" and isinstance(inst, dict):
            known = list(schema.get("properties", {}))
            patterns = [re.compile(p) for p in schema.get("patternProperties", {})]
            extra = [
                k
                for k in inst
                if k not in known and not any(isinstance(k, str) and p.search(k) for p in patterns)
            ]
            return [
                (
                    doc.key_pos(path + (k,)),
                    f"unknown key {k!r} {_where(path)}{_suggest(k, known)}",
                    valid_keys(known),
                )
                for k in extra
            ]
        if kind == "unevaluatedProperties" and isinstance(inst, dict):
            tail = error.message.rsplit("(", 1)[-1]
            extra = [k for k in inst if repr(k) in tail] or list(inst)[:0]
            known = list(schema.get("properties", {}))
            if extra:
                return [
                    (
                        doc.key_pos(path + (k,)),
                        f"unknown key {k!r} {_where(path)}{_suggest(k, known)}",
                        valid_keys(known),
                    )
                    for k in extra
                ]
        if kind == "required" and isinstance(inst, dict):
            missing = [k for k in value if k not in inst]
            for k in missing:
                if error.message.startswith(repr(k)):
                    missing = [k]
                    break
            return [(pos, f"missing required key {k!r} {_where(path)}") for k in missing]
        if kind == "type":
            types = value if isinstance(value, list) else [value]
            words = _join_or([_TYPE_WORDS.get(t, t) for t in types])
            if inst is None and not path:
                return [(pos, f"expected {words} here, but the file is empty")]
            return [(pos, f"{prefix}expected {words} here, got {_got(inst)}")]
        if kind == "enum":
            shown = ", ".join(_short(v) for v in value[:12]) + (", ..." if len(value) > 12 else "")
            return [(pos, f"{subject} is not one of: {shown}{_suggest(inst, value)}")]
        if kind == "const":
            return [(pos, f"{prefix}expected {_short(value)} here, got {_got(inst)}")]
        if kind in ("oneOf", "anyOf"):
            return [(pos, self._no_branch(error, inst))]
        if kind == "minimum":
            return [(pos, f"{name} must be at least {value}, got {inst!r}")]
        if kind == "maximum":
            return [(pos, f"{name} must be at most {value}, got {inst!r}")]
        if kind == "exclusiveMinimum":
            return [(pos, f"{name} must be more than {value}, got {inst!r}")]
        if kind == "exclusiveMaximum":
            return [(pos, f"{name} must be less than {value}, got {inst!r}")]
        if kind == "minLength":
            if value == 1:
                return [(pos, f"{name} must not be empty")]
            return [(pos, f"{name} must be at least {value} characters long, got {_short(inst)}")]
        if kind == "maxLength":
            return [(pos, f"{name} must be at most {value} characters long, got {_short(inst)}")]
        if kind == "pattern":
            return [(pos, f"{subject} does not have the expected form ({value})")]
        if kind == "minItems":
            n = len(inst) if isinstance(inst, list) else 0
            return [(pos, f"{name} needs at least {value} item{'s' * (value != 1)}, got {n}")]
        if kind == "maxItems":
            n = len(inst) if isinstance(inst, list) else 0
            return [(pos, f"{name} allows at most {value} item{'s' * (value != 1)}, got {n}")]
        if kind == "minProperties":
            return [(pos, f"{name} needs at least {value} key{'s' * (value != 1)}")]
        if kind == "maxProperties":
            return [(pos, f"{name} allows at most {value} key{'s' * (value != 1)}")]
        if kind == "uniqueItems":
            return [(pos, f"the items of {name} must all be different")]
        if kind == "multipleOf":
            return [(pos, f"{name} must be a multiple of {value}, got {inst!r}")]
        if kind == "dependentRequired" and isinstance(inst, dict):
            out = []
            for key, needs in value.items():
                if key in inst:
                    for k in needs:
                        if k not in inst:
                            out.append(
                                (pos, f"key {key!r} needs key {k!r} next to it {_where(path)}")
                            )
            if out:
                return out
        if kind is False or kind == "false" or error.validator_value is False:
            return [(pos, f"{prefix}nothing is allowed here")]
        return [(pos, prefix + error.message)]

    def _no_branch(self, error: ValidationError, inst: Any) -> str:
        """A message for a oneOf/anyOf that no branch matched and no branch was clearly closest."""
        if error.validator == "oneOf" and not error.context:
            return f"{_got(inst)} matches more than one of the allowed forms"
        types: list[str] = []
        for sub in error.context or []:
            if sub.validator == "type" and not sub.relative_path:
                for t in (
                    sub.validator_value
                    if isinstance(sub.validator_value, list)
                    else [sub.validator_value]
                ):
                    word = _TYPE_WORDS.get(t, t)
                    if word not in types:
                        types.append(word)
        if types and len(types) == len(error.context or []):
            return f"expected {_join_or(types)} here, got {_got(inst)}"
        # every form only asks for keys that are missing: say which keys make each form
        subs = error.context or []
        if (
            isinstance(inst, dict)
            and subs
            and all(sub.validator == "required" and not sub.relative_path for sub in subs)
        ):
            forms: list[str] = []
            for sub in subs:
                keys = " and ".join(repr(k) for k in sub.validator_value)
                if keys not in forms:
                    forms.append(keys)
            return f"missing keys: this mapping needs {', or '.join(forms)}"
        return f"{_got(inst)} does not match any of the allowed forms"
