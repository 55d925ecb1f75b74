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
