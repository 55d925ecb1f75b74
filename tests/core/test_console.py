"""Console tables: fixed-width columns (first left, others right), floats through ``floatfmt``,
everything else through ``str``, and ``print_table``'s title line."""

from __future__ import annotations

import numpy as np
import pandas as pd

from nesybench.console import format_number, format_table, print_table


def test_format_table_left_aligns_the_first_column_and_right_aligns_the_others():
    df = pd.DataFrame({"name": ["a", "bbbbbb"], "x": [1.0, 0.25], "n": [7, 1234]})
    # widths: name 6 ("bbbbbb"), x 6 ("1.0000"), n 4 ("1234"); two spaces between columns,
    # two spaces of indent, trailing blanks stripped
    assert format_table(df).split("\n") == [
        "  name         x     n",
        "  a       1.0000     7",
        "  bbbbbb  0.2500  1234",
    ]


def test_format_table_header_wider_than_values_pads_the_values():
    df = pd.DataFrame({"k": ["x"], "a_long_header": [3]})
    assert format_table(df) == "  k  a_long_header\n  x              3"


def test_format_table_right_aligned_last_column_gives_lines_of_equal_width():
    df = pd.DataFrame({"group": ["aa", "b", "cccc"], "v": [0.5, 10.0, 100.125]})
    lines = format_table(df).split("\n")
    assert len({len(line) for line in lines}) == 1  # the last column is right-aligned
    assert all(line.startswith("  ") for line in lines)


def test_format_table_formats_floats_with_floatfmt():
    df = pd.DataFrame({"m": ["p"], "x": [0.123456]})
    assert format_table(df) == "  m       x\n  p  0.1235"
    assert format_table(df, floatfmt="{:.2f}") == "  m     x\n  p  0.12"
    assert format_table(df, floatfmt="{:.1%}") == "  m      x\n  p  12.3%"


def test_format_table_formats_integral_floats_and_nan_as_floats():
    df = pd.DataFrame({"m": ["p", "q"], "x": [2.0, np.nan]})
    assert format_table(df, floatfmt="{:.1f}").split("\n") == ["  m    x", "  p  2.0", "  q  nan"]


def test_format_table_leaves_ints_strings_and_bools_untouched():
    df = pd.DataFrame({"s": ["0.5", "abc"], "i": [3, -12], "b": [True, False]})
    # "0.5" is a string, 3 an int: neither gets four decimals
    assert format_table(df).split("\n") == [
        "  s      i      b",
        "  0.5    3   True",
        "  abc  -12  False",
    ]


def test_format_table_uses_the_column_names_and_ignores_the_index():
    df = pd.DataFrame({0: ["a"], 1: [5]}, index=["row-label-not-shown"])
    out = format_table(df)
    assert out == "  0  1\n  a  5"
    assert "row-label" not in out


def test_format_table_with_no_rows_prints_the_header_only():
    df = pd.DataFrame({"depth": pd.Series([], dtype=int), "acc": pd.Series([], dtype=float)})
    assert format_table(df) == "  depth  acc"


def test_print_table_prints_a_blank_line_the_title_and_the_table(capsys):
    df = pd.DataFrame({"name": ["a", "bb"], "x": [1.0, 0.25]})
    print_table("Accuracy by name", df)
    assert capsys.readouterr().out == (
        "\nAccuracy by name\n  name       x\n  a     1.0000\n  bb    0.2500\n"
    )


def test_print_table_passes_floatfmt_through(capsys):
    df = pd.DataFrame({"name": ["a"], "x": [0.25]})
    print_table("T", df, floatfmt="{:.1f}")
    out = capsys.readouterr().out
    assert out == "\nT\n" + format_table(df, floatfmt="{:.1f}") + "\n"
    assert out.endswith("  a     0.2\n")


def test_a_value_that_rounds_to_zero_prints_without_a_sign():
    """-1e-17 and 1e-17 are the same coefficient computed by two CPUs' kernels."""
    df = pd.DataFrame({"term": ["a", "b", "c"], "coef": [-1e-17, 1e-17, -0.00006]})
    cells = [line.split()[1] for line in format_table(df).split("\n")[1:]]
    assert cells == ["0.0000", "0.0000", "-0.0001"]


def test_format_number_marks_a_missing_value_and_drops_the_sign_of_a_rounded_zero():
    assert format_number(None) == "-"
    assert [format_number(v) for v in (-1e-17, 1e-17, -0.00006, 0.5)] == [
        "0.0000",
        "0.0000",
        "-0.0001",
        "0.5000",
    ]
    assert format_number(np.float64(-1e-9), "{:.2f}") == "0.00"


def test_the_cli_lines_and_the_tables_format_a_number_the_same_way():
    """One formatter: the table cell and the CLI line agree on every value, signed zeros too."""
    values = [-1e-17, 0.0, -0.0, 1 / 3, -2 / 3, 1e6, -0.00005, -0.00004]
    df = pd.DataFrame({"term": [str(i) for i in range(len(values))], "x": values})
    cells = [line.split()[1] for line in format_table(df).split("\n")[1:]]
    assert cells == [format_number(v) for v in values]
