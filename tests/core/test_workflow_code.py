"""The rules' code inputs are the import closure of what each job runs, checked at run time."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from nesybench import INSTRUMENT_MODULES, INSTRUMENTS
from nesybench.workflow_code import code_inputs

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("instrument", INSTRUMENTS)
def test_code_inputs_cover_every_module_a_job_imports(instrument):
    """Import what the runner imports for a job; every nesybench module loaded is a code input."""
    modules = INSTRUMENT_MODULES[instrument]
    code = (
        "import json, sys, importlib; import nesybench.stages; "
        f"importlib.import_module({modules['pipeline']!r}); "
        f"importlib.import_module({modules['artifacts']!r}); "
        "print(json.dumps(sorted(m.__file__ for n, m in sys.modules.items() "
        "if n.startswith('nesybench') and getattr(m, '__file__', None))))"
    )
    loaded = json.loads(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
    )
    declared = set(code_inputs("score", instrument, str(ROOT)))
    missing = [
        str(Path(f).resolve().relative_to(ROOT))
        for f in loaded
        if str(Path(f).resolve().relative_to(ROOT)) not in declared
    ]
    assert not missing, f"{instrument}: imported at run time but not a code input: {missing}"
    assert "stages/score.py" in declared


def test_the_report_depends_on_every_instrument_report_section():
    declared = set(code_inputs("report", "report", str(ROOT)))
    for instrument in INSTRUMENTS:
        assert f"src/nesybench/{instrument}/report.py" in declared


def test_package_data_is_a_code_input_of_the_instrument_that_reads_it():
    assert "src/nesybench/calibration/data/academic_kg.yaml" in code_inputs(
        "generate", "calibration", str(ROOT)
    )


def _copy_sources(dest: Path) -> Path:
    import shutil

    shutil.copytree(ROOT / "src" / "nesybench", dest / "src" / "nesybench")
    shutil.copytree(ROOT / "stages", dest / "stages")
    return dest


def _fresh(function: str, root: Path, stage: str, instrument: str) -> list[str]:
    """``nesybench.workflow_code.<function>`` in a new process, as a Snakemake run calls it (the
    per-run memo starts empty; the file caches do not)."""
    code = (
        f"import json, sys; from nesybench.workflow_code import {function}; "
        f"print(json.dumps({function}(sys.argv[1], sys.argv[2], sys.argv[3])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, stage, instrument, str(root)],
        capture_output=True,
        text=True,
        check=True,
        preexec_fn=lambda: os.umask(0o022),  # files get the mode the umask gives (nesybench.io)
    ).stdout
    return json.loads(out)


def _code_inputs_fresh(root: Path, stage: str, instrument: str) -> list[str]:
    return _fresh("code_inputs", root, stage, instrument)


def _code_stamp_fresh(root: Path, stage: str, instrument: str) -> list[str]:
    return _fresh("code_stamp", root, stage, instrument)


def test_the_import_cache_is_kept_between_runs_and_follows_every_edit(tmp_path):
    from nesybench.workflow_code import IMPORT_CACHE

    root = _copy_sources(tmp_path)
    expected = code_inputs("score", "nli", str(ROOT))
    assert _code_inputs_fresh(root, "score", "nli") == expected
    cache = root / IMPORT_CACHE
    assert cache.is_file()
    assert _code_inputs_fresh(root, "score", "nli") == expected  # read from the cache
    # an edit that adds an import reaches the code inputs of the next run
    (root / "src/nesybench/nli/extra_step.py").write_text("X = 1\n")
    pipeline = root / "src/nesybench/nli/pipeline.py"
    pipeline.write_text(pipeline.read_text() + "\nfrom . import extra_step  # noqa\n")
    assert _code_inputs_fresh(root, "score", "nli") == sorted(
        [*expected, "src/nesybench/nli/extra_step.py"]
    )
    # and one that removes it takes it out again
    pipeline.write_text(pipeline.read_text().replace("from . import extra_step  # noqa\n", ""))
    assert _code_inputs_fresh(root, "score", "nli") == expected


def test_a_damaged_or_stale_import_cache_is_rebuilt(tmp_path):
    import hashlib

    from nesybench.workflow_code import IMPORT_CACHE

    root = _copy_sources(tmp_path)
    expected = code_inputs("train", "axes", str(ROOT))
    cache = root / IMPORT_CACHE
    cache.parent.mkdir(parents=True)
    for damage in ("{not json", '["a list"]', '{"scanner": 1, "files": 2}', ""):
        cache.write_text(damage)
        assert _code_inputs_fresh(root, "train", "axes") == expected
    # forged entries: the pipeline importing nothing. Under another scanner's hash, or under
    # the digest of other bytes than the file holds, they are not believed.
    data = json.loads(cache.read_text())
    digest = hashlib.sha256((root / "src/nesybench/axes/pipeline.py").read_bytes()).hexdigest()
    for scanner, entry in (("another scanner", digest), (data["scanner"], "0" * 64)):
        forged = {"scanner": scanner, "files": {**data["files"], "axes/pipeline.py": [entry, []]}}
        cache.write_text(json.dumps(forged))
        assert _code_inputs_fresh(root, "train", "axes") == expected
    # the forgery under the right scanner and digest is believed: the cache is what is read
    forged = {
        "scanner": data["scanner"],
        "files": {**data["files"], "axes/pipeline.py": [digest, []]},
    }
    cache.write_text(json.dumps(forged))
    assert _code_inputs_fresh(root, "train", "axes") != expected


def test_code_inputs_are_computed_where_the_cache_cannot_be_written(tmp_path):
    root = _copy_sources(tmp_path)
    (root / ".snakemake").write_text("a file where the cache folder would go")
    assert _code_inputs_fresh(root, "count", "calibration") == code_inputs(
        "count", "calibration", str(ROOT)
    )


def test_a_code_stamp_lists_every_file_of_its_code_set_with_its_digest(tmp_path):
    import hashlib

    from nesybench.workflow_code import stamped

    root = _copy_sources(tmp_path)
    [stamp] = _code_stamp_fresh(root, "score", "nli")
    assert stamp == ".snakemake/nesybench/code/score-nli.sha256"
    files = code_inputs("score", "nli", str(ROOT))
    assert stamped(stamp, str(root)) == files
    for line in (root / stamp).read_text().splitlines():
        digest, path = line.split("  ")
        assert digest == hashlib.sha256((root / path).read_bytes()).hexdigest(), path
    assert (root / stamp).stat().st_mode & 0o777 == 0o644
    assert stamped("data/score/nli/summaries.parquet", str(root)) is None
    assert stamped("stages/score.py", str(root)) is None


def test_a_code_stamp_changes_with_an_edit_and_keeps_its_mtime_for_a_touch(tmp_path):
    root = _copy_sources(tmp_path)
    files = [root / f for f in code_inputs("train", "axes", str(ROOT))]
    for i, path in enumerate(files):  # distinct mtimes, the newest not the last file
        os.utime(path, ns=(10**18 + i, 10**18 + i))
    os.utime(files[3], ns=(2 * 10**18, 2 * 10**18))
    [stamp] = _code_stamp_fresh(root, "train", "axes")
    stamp = root / stamp
    assert stamp.stat().st_mtime_ns == 2 * 10**18  # the newest file's, for the mtime trigger
    text = stamp.read_text()
    # a touch without a change of bytes: the stamp is not rewritten, so nothing reruns
    os.utime(files[0], ns=(3 * 10**18, 3 * 10**18))
    _code_stamp_fresh(root, "train", "axes")
    assert stamp.read_text() == text and stamp.stat().st_mtime_ns == 2 * 10**18
    # an edit: the file's digest changes, and the stamp's mtime is the edited file's
    files[1].write_text(files[1].read_text() + "\n# an edit\n")
    os.utime(files[1], ns=(4 * 10**18, 4 * 10**18))
    _code_stamp_fresh(root, "train", "axes")
    assert stamp.read_text() != text and stamp.stat().st_mtime_ns == 4 * 10**18
    changed = [a for a, b in zip(text.splitlines(), stamp.read_text().splitlines()) if a != b]
    assert [line.split("  ")[1] for line in changed] == [str(files[1].relative_to(root))]


def test_a_checkout_where_no_stamp_can_be_written_lists_the_files(tmp_path):
    root = _copy_sources(tmp_path)
    (root / ".snakemake").write_text("a file where the stamp folder would go")
    assert _code_stamp_fresh(root, "count", "calibration") == code_inputs(
        "count", "calibration", str(ROOT)
    )
