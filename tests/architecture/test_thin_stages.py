"""Stage functions orchestrate (read, call, write): none is longer than about 60 lines."""

import importlib
import inspect

import pytest

from nesybench import INSTRUMENT_MODULES, INSTRUMENTS

MAX_LINES = 60


def _stage_functions():
    for instrument in INSTRUMENTS:
        module = importlib.import_module(INSTRUMENT_MODULES[instrument]["pipeline"])
        for (stage, step), func in module.STAGE_FUNCTIONS.items():
            yield f"{instrument}:{stage}{':' + step if step else ''}", func


@pytest.mark.parametrize(
    "name, func", list(_stage_functions()), ids=lambda v: v if isinstance(v, str) else ""
)
def test_stage_function_is_thin(name, func):
    lines, _ = inspect.getsourcelines(func)
    assert len(lines) <= MAX_LINES, f"{name} ({func.__qualname__}) is {len(lines)} lines"
