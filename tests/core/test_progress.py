"""Long work shows progress: about ten log lines over a run that is not on a terminal."""

from nesybench.progress import log, progress


def test_progress_logs_about_ten_lines_and_yields_everything(capsys):
    assert list(progress(range(100), desc="work")) == list(range(100))
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "work: 10/100" and lines[-1] == "work: 100/100" and len(lines) == 10


def test_progress_without_a_length_and_log_go_to_stderr(capsys):
    assert list(progress(iter(range(3)), desc="gen", every=2)) == [0, 1, 2]
    log("done")
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.splitlines() == ["gen: 2/?", "done"]


def test_the_command_line_prints_no_log_lines_off_a_terminal(capsys):
    """`nesybench` wraps its commands in quiet_log_lines: stderr keeps only what a user must
    read (a failing command's one error line); pipeline stages keep their log lines."""
    from nesybench.progress import quiet_log_lines

    with quiet_log_lines():
        assert list(progress(range(50), desc="work")) == list(range(50))
        log("a stage's own line stays")
    assert capsys.readouterr().err.splitlines() == ["a stage's own line stays"]
    list(progress(range(10), desc="after"))
    assert len(capsys.readouterr().err.splitlines()) == 10


def test_clear_bars_erases_an_open_terminal_bar_before_the_error_line(monkeypatch):
    """On a terminal a bar left open by an error is closed (and so erased) by clear_bars."""
    import io
    import sys

    from nesybench import progress as module

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    items = progress(range(100), desc="label")
    next(items)  # the bar is open, as when a command fails mid-loop
    assert len(module._open_bars) == 1
    module.clear_bars()
    assert len(module._open_bars) == 0 or all(bar.disable for bar in module._open_bars)
    # tqdm with leave=False ends by blanking its line: nothing of the bar is left after "\r"
    assert terminal.getvalue().rstrip(" ").endswith("\r")
