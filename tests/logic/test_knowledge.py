"""The knowledge objects: parity and CNF (binary), sum, and tables read from users' files."""

from __future__ import annotations

import pandas as pd
import pytest

from nesybench.errors import InputError
from nesybench.logic import (
    SumKnowledge,
    TableKnowledge,
    all_states,
    knowledge_table_frame,
    make_knowledge,
    read_knowledge_table,
)


def test_sum_labels_and_class_sizes_by_convolution():
    knowledge = make_knowledge("sum", (10, 10, 10))
    assert knowledge.labels([[1, 2, 3], [9, 9, 9]]).tolist() == [6, 27]
    sizes = knowledge.class_sizes()
    tally = pd.Series(knowledge.labels(all_states((10, 10, 10)))).value_counts().to_dict()
    assert sizes == {s: tally[s] for s in sorted(tally)} and sum(sizes.values()) == 1000


def test_xor_and_cnf_need_binary_domains():
    with pytest.raises(
        InputError, match="xor needs binary concepts .* got domain 10 for concept 1"
    ):
        make_knowledge("xor", (10, 10))
    with pytest.raises(InputError, match="a CNF needs binary concepts .* concept 2"):
        make_knowledge("(x1 | x2)", (2, 3))
    assert make_knowledge("sum", 3).labels([[1, 0, 1]]).tolist() == [2]


def test_table_knowledge_labels_any_hashable_label():
    table = TableKnowledge.from_labels((2, 2), ["even", 3, 3, "even"])
    assert table.labels([[0, 0], [0, 1], [1, 1]]).tolist() == [1, 0, 1]
    assert table.label_name(1) == "even" and table.label_name(0) == 3


def _frame(rows, labels):
    return pd.DataFrame({"c1": [r[0] for r in rows], "c2": [r[1] for r in rows], "y": labels})


def test_knowledge_table_infers_domains_and_matches_sum(tmp_path):
    grid = all_states((3, 3))
    path = tmp_path / "k.csv"
    _frame(grid.tolist()[::-1], grid.sum(axis=1)[::-1].tolist()).to_csv(path, index=False)
    table = read_knowledge_table(path)
    assert table.domains == (3, 3)
    assert table.labels(grid).tolist() == SumKnowledge((3, 3)).labels(grid).tolist()


@pytest.mark.parametrize(
    "rows, labels, domains, fragment",
    [
        ([(0, 0), (0, 1), (1, 0)], [0, 1, 1], None, "state '11' is missing (1 of 4 states"),
        ([(0, 0), (0, 1), (1, 0), (1, 1), (0, 1)], [0] * 5, None, "row 4 repeats state '01'"),
        ([(0, 0), (0, 1), (1, 0), (1, 1)], [0] * 4, [2, 2, 2], "has 2 concept columns"),
        ([(0, 0), (0, 3), (1, 0), (1, 1)], [0] * 4, [2, 3], "column 'c2' row 1 must be an"),
        ([(0, 0), (0, 1), (1, 0), (1, 1)], [0] * 4, [3, 2], "state '2:0' is missing"),
        ([(0, 0), (0, 0)], [0, 0], None, "column 'c1' only holds the value 0"),
        ([(0, -1), (1, 0)], [0, 1], None, "column 'c2' row 0 must be an integer >= 0"),
    ],
)
def test_knowledge_table_errors_name_the_first_offender(rows, labels, domains, fragment):
    with pytest.raises(InputError) as info:
        knowledge_table_frame(_frame(rows, labels), domains=domains, source="k.csv")
    assert fragment in str(info.value) and str(info.value).startswith("k.csv: ")


def test_knowledge_table_needs_its_columns():
    with pytest.raises(InputError, match="missing column 'c1'"):
        knowledge_table_frame(pd.DataFrame({"a": [0], "y": [1]}), source="k.csv")
    with pytest.raises(InputError, match="missing column 'y'"):
        knowledge_table_frame(pd.DataFrame({"c1": [0, 1]}), source="k.csv")
    with pytest.raises(InputError, match="column 'c3' without column 'c2'"):
        knowledge_table_frame(pd.DataFrame({"c1": [0, 1], "c3": [0, 1], "y": [0, 1]}))


def test_knowledge_table_null_label_is_named(tmp_path):
    path = tmp_path / "k.csv"
    path.write_text("c1,y\n0,a\n1,\n")
    with pytest.raises(InputError, match="column 'y' row 1 .* got null"):
        read_knowledge_table(path)
