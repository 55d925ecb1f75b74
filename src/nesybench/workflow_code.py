"""The code a job runs, derived from the import graph: the rules' ``code`` inputs.

A rule lists every source file its job can execute as an input, so that editing any of
them reruns the job under Snakemake and DVC alike.  The list is not written by hand: it is
the static import closure (every ``import`` in a module, including those inside functions)
of the stage runner and of the modules the runner loads by name for that instrument (its
pipeline and its artifact registry; for the report, every instrument's report section),
plus the package data files (``*.yaml``) of the packages in the closure.

A rule does not list those files itself but one stamp per code set (:func:`code_stamp`):
Snakemake stats every input of every pending job at each scheduling round, and 36 to 111
code files per job made that most of its own CPU on the full profile.  The stamp holds each
file's SHA-256, so it changes exactly when one of them does, and carries the newest file's
mtime, so Snakemake's mtime and checksum triggers decide as they would on the files;
``dvc_export`` maps it back to the files, which DVC hashes itself.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
from functools import cache
from pathlib import Path

from . import INSTRUMENT_MODULES
from .errors import InputError
from .io import atomic_write_text

SRC = Path(__file__).resolve().parent
PACKAGE = "nesybench"
#: the imports of every source file, by content, relative to the checkout (see _ImportCache)
IMPORT_CACHE = Path(".snakemake") / "nesybench" / "imports.json"
#: one stamp per (stage, instrument) code set, relative to the checkout (see code_stamp)
STAMP_DIR = Path(".snakemake") / "nesybench" / "code"
STAMP_SUFFIX = ".sha256"

__all__ = ["code_inputs", "code_stamp", "import_closure", "module_file", "stamped"]


@cache
def module_file(module: str, src: Path = SRC) -> Path | None:
    """The source file of a ``nesybench.*`` module (package ``__init__`` or module file)."""
    parts = module.split(".")
    if parts[0] != PACKAGE:
        return None
    base = src.joinpath(*parts[1:])
    if (base / "__init__.py").exists():
        return base / "__init__.py"
    if base.with_suffix(".py").exists():
        return base.with_suffix(".py")
    return None


def _module_name(path: Path, src: Path) -> str:
    rel = path.relative_to(src).with_suffix("")
    parts = [PACKAGE, *rel.parts]
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


class _ImportCache:
    """The imports found in each source file, kept between runs in ``IMPORT_CACHE`` under the
    checkout (Snakemake's state folder, git-ignored).

    Parsing every module is most of what a no-op Snakemake run would spend on code inputs,
    so a file is parsed again only when its bytes change: an entry is keyed by the file's
    path and SHA-256, under the SHA-256 of this module (the scanner); a missing, unreadable
    or stale cache is rebuilt, and a folder it cannot be written to is left alone.
    """

    def __init__(self, src: Path) -> None:
        self.path = src.parents[1] / IMPORT_CACHE
        self.scanner = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
        self.files: dict[str, list] = {}
        self.dirty = False
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if data.get("scanner") == self.scanner and isinstance(data.get("files"), dict):
                self.files = data["files"]
        except (OSError, ValueError, AttributeError):
            pass

    def imports(self, path: Path, src: Path) -> frozenset[str]:
        key, digest = str(path.relative_to(src)), _digest(path)
        hit = self.files.get(key)
        if isinstance(hit, list) and len(hit) == 2 and hit[0] == digest:
            return frozenset(hit[1])
        found = _scan_imports(path.read_bytes(), path, src)
        self.files[key] = [digest, sorted(found)]
        self.dirty = True
        return found

    def save(self) -> None:
        if not self.dirty:
            return
        text = json.dumps({"scanner": self.scanner, "files": self.files}, sort_keys=True)
        try:
            atomic_write_text(self.path, text)
            self.dirty = False
        except InputError:
            pass  # a read-only checkout: the cache stays in memory


@cache
def _digest(path: Path) -> str:
    """SHA-256 of a source file, read once per run: the import cache and every code stamp
    that lists the file share it."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _import_cache(src: Path) -> _ImportCache:
    return _ImportCache(src)


@cache
def _imports(path: Path, src: Path) -> frozenset[str]:
    """Every ``nesybench.*`` module a file imports (memoised per run, and between runs by
    content: :class:`_ImportCache`)."""
    return _import_cache(src).imports(path, src)


def _scan_imports(source: bytes, path: Path, src: Path) -> frozenset[str]:
    """Every ``nesybench.*`` module ``source`` (the file ``path``) imports, relative imports
    resolved."""
    tree = ast.parse(source.decode("utf-8"))
    name = _module_name(path, src)
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == PACKAGE)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join([*base, *([node.module] if node.module else [])])
            elif node.module and node.module.split(".")[0] == PACKAGE:
                module = node.module
            else:
                continue
            found.add(module)
            # `from pkg import mod` may name a submodule
            found.update(f"{module}.{a.name}" for a in node.names)
    closure = set()
    for module in found:
        # importing a.b.c runs a/__init__ and a/b/__init__ too
        parts = module.split(".")
        closure.update(".".join(parts[:i]) for i in range(1, len(parts) + 1))
    return frozenset(closure)


def import_closure(modules: list[str], src: Path = SRC) -> set[Path]:
    """Source files of ``modules`` and of everything they import, transitively."""
    seen: set[Path] = set()
    todo = list(modules)
    while todo:
        path = module_file(todo.pop(), src)
        if path is None or path in seen:
            continue
        seen.add(path)
        todo.extend(_imports(path, src))
    return seen


@cache
def code_inputs(stage: str, instrument: str, root: str = ".") -> list[str]:
    """Relative paths of every file a ``stages/<stage>.py <instrument>`` job can run."""
    # stages/<stage>.py pins the numeric environment (numeric_env) before it loads the runner
    roots = [f"{PACKAGE}.numeric_env", f"{PACKAGE}.stages"]
    if instrument == "report":
        roots = [f"{PACKAGE}.numeric_env", f"{PACKAGE}.report.pipeline"]
        for modules in INSTRUMENT_MODULES.values():
            roots.extend([modules["report"], modules["artifacts"]])
    else:
        modules = INSTRUMENT_MODULES[instrument]
        roots.extend([modules["pipeline"], modules["artifacts"]])
    base = Path(root).resolve()
    src = base / "src" / PACKAGE  # the checkout's sources, not wherever the package is installed
    files = import_closure(roots, src)
    _import_cache(src).save()
    data = set()
    for path in files:
        if path.name == "__init__.py":
            data.update(path.parent.glob("data/*.yaml"))
    rel = {str(p.relative_to(base)) for p in files | data}
    rel.add(f"stages/{stage}.py")
    return sorted(rel)


def _stamp_path(stage: str, instrument: str) -> str:
    return str(STAMP_DIR / f"{stage}-{instrument}{STAMP_SUFFIX}")


@cache
def code_stamp(stage: str, instrument: str, root: str = ".") -> list[str]:
    """The rule input standing for :func:`code_inputs`: ``[stamp]``, the stamp file's path
    relative to ``root``, or the files themselves where the stamp cannot be written.

    The stamp lists ``<sha256>  <path>`` for every file of the code set.  It is rewritten
    (atomically) only when that text changes, and its mtime is then set to the newest of the
    files', so a touched but unchanged file reruns nothing and an edited one reruns exactly
    the jobs whose code set holds it, as when the rule listed the files.
    """
    files = code_inputs(stage, instrument, root)
    base = Path(root).resolve()  # the paths _digest has already read for the import closure
    rel = _stamp_path(stage, instrument)
    try:
        text = "".join(f"{_digest(base / f)}  {f}\n" for f in files)
        newest = max((base / f).stat().st_mtime_ns for f in files)
        path = base / rel
        try:
            unchanged = path.read_text(encoding="utf-8") == text
        except (OSError, UnicodeDecodeError):
            unchanged = False
        if not unchanged:
            atomic_write_text(path, text)
            os.utime(path, ns=(newest, newest))
    except (OSError, InputError):
        return files  # a read-only checkout: the rule lists the files, as before stamps
    return [rel]


def stamped(path: str, root: str = ".") -> list[str] | None:
    """The files a code stamp stands for (read from the stamp), or None for any other path."""
    rel = Path(path)
    if rel.parent != STAMP_DIR or rel.suffix != STAMP_SUFFIX:
        return None
    text = (Path(root) / rel).read_text(encoding="utf-8")
    return [line.split("  ", 1)[1] for line in text.splitlines() if "  " in line]
