from __future__ import annotations

import pytest

from nesybench.axes.design import design_table, factorial_cells, ofat_cells, questions_per_cell


def test_design_arithmetic_spec_values():
    assert ofat_cells(axes=7, levels=3) == 15
    assert factorial_cells(axes=7, levels=3) == 2187
    assert questions_per_cell(half_width=0.05, p=0.5, z=1.96) == 385
    assert [r["value"] for r in design_table()] == [15, 2187, 385, 841_995]


def test_questions_per_cell_meets_the_half_width():
    for w in (0.01, 0.03, 0.05, 0.1):
        n = questions_per_cell(half_width=w)
        assert 1.96 * (0.25 / n) ** 0.5 <= w < 1.96 * (0.25 / (n - 1)) ** 0.5


def test_questions_per_cell_exact_integer_is_not_rounded_up():
    # z^2 p(1-p) / w^2 = 100 exactly: no float noise may push it to 101
    assert questions_per_cell(half_width=0.1, p=0.5, z=2.0) == 100


@pytest.mark.parametrize("kwargs", [{"half_width": 0}, {"half_width": 0.05, "p": 1.0}])
def test_questions_per_cell_rejects_bad_input(kwargs):
    with pytest.raises(ValueError):
        questions_per_cell(**kwargs)
