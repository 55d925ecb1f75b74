"""Importing the figure helpers changes nothing global; figures are byte-deterministic."""

import subprocess
import sys


def test_importing_figures_has_no_side_effects():
    # (Reading rcParams['backend'] itself imports pyplot, so only the style keys are compared.)
    code = (
        "import sys; import nesybench.report.figures as f; import matplotlib; "
        "assert 'matplotlib.pyplot' not in sys.modules, 'pyplot imported'; "
        "assert all(matplotlib.rcParams[k] == matplotlib.rcParamsDefault[k] for k in f.STYLE); "
        "print('ok')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.stdout.strip() == "ok", out.stderr


def test_the_same_figure_gives_the_same_bytes():
    from nesybench.report.figures import figure_style, new_figure, to_png, to_svg

    def draw():
        with figure_style():
            fig, ax = new_figure()
            ax.plot([0, 1], [1, 0])
            ax.set_title("t")
        return fig

    assert to_svg(draw()) == to_svg(draw())
    assert to_png(draw()) == to_png(draw())
