"""Package layout for setuptools (the rest of the metadata is in pyproject.toml).

The client's layout keeps compiler/, runtime/, generated/, schemas/ and rules/ at the top
level; they install under the one namespace `rulecraft` so that no generic top-level module
named `compiler`, `runtime` or `generated` lands in site-packages. Every generated game is a
subpackage, found here so that a newly compiled game is packaged without editing this file.
The bundled games' rules are package data (`rulecraft/rules/`): `rulecraft init --from GAME`
copies them, and `sheet` and `explain` read them outside the repository.
"""

from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
GAMES = sorted(p.name for p in (ROOT / "generated").iterdir() if (p / "__init__.py").is_file())
# Every folder of the bundled rules is a data-only package (a folder of package data that is
# not listed would be "absent from the packages configuration", a warning on every install).
# compiler/ and runtime/ with their wings: every folder of Python code below them
CODE = sorted(
    ".".join(("rulecraft", *p.relative_to(ROOT).parts))
    for top in ("compiler", "runtime")
    for p in [ROOT / top, *(ROOT / top).rglob("*")]
    if p.is_dir() and (p / "__init__.py").is_file()
)
# the Jinja2 templates of the code generator and of the sheets: data-only packages
TEMPLATES = ["rulecraft.compiler.codegen.templates", "rulecraft.compiler.publish.templates"]
RULES = sorted(
    ".".join(p.relative_to(ROOT / "rules").parts)
    for p in (ROOT / "rules").rglob("*")
    if p.is_dir() and any(f.is_file() for f in p.iterdir())
)

setup(
    package_dir={
        "rulecraft.compiler": "compiler",
        "rulecraft.runtime": "runtime",
        "rulecraft.generated": "generated",
        "rulecraft.schemas": "schemas",
        "rulecraft.rules": "rules",
    },
    packages=[
        *CODE,
        *TEMPLATES,
        "rulecraft.generated",
        "rulecraft.schemas",
        "rulecraft.rules",  # data only: the bundled games' rules
        *(f"rulecraft.generated.{game}" for game in GAMES),
        *(f"rulecraft.rules.{folder}" for folder in RULES),
    ],
)
