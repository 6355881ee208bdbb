"""Options of the test suite: ``--fuzz-budget N``, the inputs each fuzzer tries (``-m fuzz``)."""

from __future__ import annotations

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
