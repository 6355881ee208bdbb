"""Options of the test suite (``--fuzz-budget N``, the inputs each fuzzer tries, ``-m fuzz``)
and the registry of compiled games put back as it was after each test."""

from __future__ import annotations

import sys

import pytest

#: inputs each fuzzer tries by default (CI); a long run gives --fuzz-budget
FUZZ_BUDGET = 200


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fuzz-budget",
        type=int,
        default=FUZZ_BUDGET,
        help=f"inputs each fuzzer tries (-m fuzz; default {FUZZ_BUDGET})",
    )


@pytest.fixture
def fuzz_budget(request: pytest.FixtureRequest) -> int:
    return max(1, int(request.config.getoption("--fuzz-budget")))


@pytest.fixture(autouse=True)
def _registry_as_it_was():
    """Every test finds the games registered when the tests were collected (the bundled ones
    and the toy game), whatever projects an earlier test put first (``use_package``)."""
    from rulecraft.runtime import registry

    packages, folders, specs = (
        list(registry.PACKAGES),
        dict(registry._FOLDERS),
        dict(registry._SPECS),
    )
    yield
    registry.PACKAGES[:] = packages
    registry._FOLDERS.clear()
    registry._FOLDERS.update(folders)
    registry._SPECS.clear()
    registry._SPECS.update(specs)
    # the toy game registers itself when first imported, which may be inside a test: it
    # stays registered for the tests after it, which import it without registering again
    toy = sys.modules.get("fixtures.toy")
    if toy is not None:
        for spec in toy.SPECS.values():
            registry.register(spec)
