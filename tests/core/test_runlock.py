"""Snakemake and DVC must not run stages in one project at once."""

from __future__ import annotations

import fcntl

import pytest

from nesybench.errors import InputError
from nesybench.runlock import check_other_runner_idle, dvc_running, snakemake_running


def test_dvc_is_running_exactly_while_its_lock_is_held(tmp_path):
    lock = tmp_path / ".dvc" / "tmp" / "lock"
    assert not dvc_running(tmp_path)
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    assert not dvc_running(tmp_path)
    with open(lock, "a+b") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert dvc_running(tmp_path)
        with pytest.raises(InputError, match="dvc is running in this project"):
            check_other_runner_idle(tmp_path, runner="snakemake")
        check_other_runner_idle(tmp_path, runner="dvc")  # a DVC stage under its own lock
    assert not dvc_running(tmp_path)


def test_snakemake_is_running_while_its_lock_files_exist(tmp_path):
    locks = tmp_path / ".snakemake" / "locks"
    locks.mkdir(parents=True)
    assert not snakemake_running(tmp_path)
    (locks / "0.input.lock").write_text("")
    assert snakemake_running(tmp_path)
    with pytest.raises(InputError, match="snakemake is running in this project.*--unlock"):
        check_other_runner_idle(tmp_path, runner="dvc")
    check_other_runner_idle(tmp_path, runner="snakemake")


def test_the_runner_is_read_from_dvcs_environment(tmp_path, monkeypatch):
    (tmp_path / ".snakemake" / "locks").mkdir(parents=True)
    (tmp_path / ".snakemake" / "locks" / "0.output.lock").write_text("")
    monkeypatch.setenv("DVC_STAGE", "calibration_train_seed@0")
    with pytest.raises(InputError, match="snakemake is running"):
        check_other_runner_idle(tmp_path)
    monkeypatch.delenv("DVC_STAGE")
    check_other_runner_idle(tmp_path)
