"""Suite-wide options. ``--engine native|python`` runs every battle the tests build on
that engine (it sets ``FRAY_ENGINE`` for the run, xdist workers included): the rules
tests and the goldens run on both engines in CI (issue 23)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from rules.engine import ENGINES, ENVIRONMENT_VARIABLE


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--engine", choices=ENGINES, default=None,
                     help="the rules engine battles run on (default: $FRAY_ENGINE, else "
                     "native when built)")


def pytest_configure(config: pytest.Config) -> None:
    chosen = config.getoption("--engine")
    if chosen is not None:
        os.environ[ENVIRONMENT_VARIABLE] = chosen


def pytest_report_header(config: pytest.Config) -> str:
    return f"fray engine: {os.environ.get(ENVIRONMENT_VARIABLE) or 'default (native when built)'}"


@pytest.fixture(autouse=True, scope="session")
def sb3_log_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """stable-baselines3 makes a new ``/tmp/SB3-<time>`` folder for every ``learn`` of a
    model with no logger of its own: the suite's all go to one folder under its temp."""
    previous = os.environ.get("SB3_LOGDIR")
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3"))
    yield
    if previous is None:
        del os.environ["SB3_LOGDIR"]
    else:
        os.environ["SB3_LOGDIR"] = previous
