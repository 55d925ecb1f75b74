"""The naming rule for metric keys, checked where every metrics file is written.

A key in ``data/**/metrics*.json`` and ``reports/metrics/<instrument>.json`` reads

    <stage>.<table>[.<part>...].<metric>[.<stat>]

- ``<stage>`` is the stage that computed it: generate, count, train, score, calibrate, report.
  The file already names the instrument.
- Every segment is lower snake_case: ``[a-z0-9]+`` words joined by single ``_``. No dashes,
  dots, ``=`` or capitals inside a segment: a system called ``prontoqa-greedy`` is the segment
  ``prontoqa_greedy``, a value is spelt by :func:`key_segment` (``0.75`` -> ``0p75``).
- One spelling per word in the metric's name: ``accuracy`` (never ``acc``), ``label_only``
  (never ``lo_``). Concept and task accuracy of the shortcut models are ``concept_accuracy``
  and ``task_accuracy``. The segments before the metric name tables and things (tasks,
  supports, systems, often named in params.yaml) and follow the syntax rules only.
- An interval is two stat segments of its own, ``.lo`` and ``.hi``, beside the point estimate
  (``.mean`` over seeds, ``.value`` for one sample); ``lo`` and ``hi`` are never a segment
  elsewhere nor a word of the metric's name, so ``rate_lo`` is ``rate.lo``. Other stats:
  ``n_seeds``, ``claim_rate``.
- No segment repeats what the key already says: not the segment before it, and not the stage
  (``calibrate.calibration.*`` and ``score.score_nli.*`` say their stage twice).
- A sensitivity key is ``<stage>.sensitivity.<claim>.<knob level>.<stat>``; its knob-level
  segment is :func:`variant_segment` of the variant token (``models.min_acc_y=0.99`` ->
  ``models_min_acc_y_0p99``). In the tables keyed by params (:data:`PARAMS_TABLES`) the
  metric position holds a knob level, params.yaml's words, so the one-spelling rule does not
  apply to it.

The one key outside the rule is :data:`PROVENANCE_KEY`, the params hash of a job's metrics.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

STAGES = ("generate", "count", "train", "score", "calibrate", "report")
# a stage's own words: a table named with one of them repeats the stage
STAGE_WORDS = {
    "generate": ("generate", "generation"),
    "count": ("count", "counting"),
    "train": ("train", "training"),
    "score": ("score", "scoring"),
    "calibrate": ("calibrate", "calibration"),
    "report": ("report",),
}
# word -> the one spelling the rule keeps
SPELLINGS = {"acc": "accuracy", "lo": "label_only (or the stat segment .lo)", "hi": ".hi"}
INTERVAL_STATS = ("lo", "hi")
# the last segment of a number with an interval or over seeds
STATS = ("mean", "value", "lo", "hi", "n_seeds", "claim_rate")
# tables whose middle segments are params.yaml's claim names and knob levels
PARAMS_TABLES = ("sensitivity", "sensitivity_mixture", "conditional", "optima")
PROVENANCE_KEY = "_provenance.params_hash"

_SEGMENT = re.compile(r"[a-z0-9]+(?:_[a-z0-9]+)*")


def check_metric_key(key: str) -> None:
    """Raise ``ValueError`` naming the broken part if ``key`` does not follow the rule above.

    >>> check_metric_key("score.head_to_head.label_only_concept_accuracy.lo")
    >>> check_metric_key("score.systems.prontoqa-greedy.accuracy")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: metric key 'score.systems.prontoqa-greedy.accuracy': segment 'prontoqa-greedy' ...
    """
    if key == PROVENANCE_KEY:
        return
    segments = key.split(".")

    def bad(why: str) -> ValueError:
        return ValueError(f"metric key {key!r}: {why}")

    if len(segments) < 2:
        raise bad("expected <stage>.<table>[.<part>...].<metric>[.<stat>]")
    stage = segments[0]
    if stage not in STAGES:
        raise bad(f"first segment {stage!r} is not a stage ({', '.join(STAGES)})")
    # The one-spelling rule is about the metric's own name (and its stat); the segments before
    # it name tables and things (tasks, supports, systems, often chosen in params.yaml) and
    # follow the syntax rules only. A params table's metric position is a knob level.
    has_stat = len(segments) > 2 and segments[-1] in STATS
    metric_at = len(segments) - 2 if has_stat else len(segments) - 1
    in_params_table = len(segments) > 3 and segments[1] in PARAMS_TABLES
    spelt = () if in_params_table else (metric_at, len(segments) - 1)
    for i, segment in enumerate(segments):
        if not _SEGMENT.fullmatch(segment):
            raise bad(f"segment {segment!r} is not lower snake_case ([a-z0-9] words joined by '_')")
        if i and segment == segments[i - 1]:
            raise bad(f"segment {segment!r} repeats the one before it")
        words = segment.split("_")
        if i and words[0] in STAGE_WORDS[stage]:
            raise bad(f"segment {segment!r} repeats the stage {stage!r}")
        if segment in INTERVAL_STATS:
            if i != len(segments) - 1:
                raise bad(f"the interval stat {segment!r} must be the last segment")
            continue
        if i not in spelt:
            continue
        for word in words:
            if word in SPELLINGS:
                raise bad(f"segment {segment!r}: spell {word!r} as {SPELLINGS[word]}")


def check_metric_keys(keys: Iterable[str]) -> None:
    """:func:`check_metric_key` on every key (the first bad one raises)."""
    for key in keys:
        check_metric_key(key)


def key_segment(value: Any) -> str:
    """A value spelt as one key segment: lower case, ``.`` -> ``p``, ``=`` and ``-`` -> ``_``,
    ``+`` -> ``_and_``, a leading minus -> ``minus_``.

    >>> key_segment("prontoqa-greedy"), key_segment(0.75), key_segment("concept_sup=0.1+entropy=1")
    ('prontoqa_greedy', '0p75', 'concept_sup_0p1_and_entropy_1')
    >>> key_segment(1e-05), key_segment(-0.5), key_segment(True)
    ('1e_05', 'minus_0p5', 'true')
    """
    if isinstance(value, bool):
        text = str(value).lower()
    elif isinstance(value, float):
        text = repr(value)
    else:
        text = str(value)
    text = text.lower()
    if text.startswith("-"):
        text = "minus_" + text[1:]
    text = text.replace(".", "p").replace("+", "_and_")
    text = re.sub(r"[^a-z0-9]+", "_", text)
    segment = re.sub(r"_+", "_", text).strip("_")
    if not segment:
        raise ValueError(f"{value!r} has no spelling as a metric key segment")
    return segment


def variant_segment(token: str) -> str:
    """A variant token (``<params path>=<level>``, or ``default``) as one key segment.

    >>> variant_segment("models.bias_init=gaussian"), variant_segment("default")
    ('models_bias_init_gaussian', 'default')
    """
    if "=" not in token:
        return key_segment(token)
    path, level = token.split("=", 1)
    return knob_segment(path, level)


def knob_segment(path: str, level_text: str) -> str:
    """The segment of a sensitivity key for one knob level (params path, then level).

    >>> knob_segment("models.min_acc_y", "0.99"), knob_segment("model.bias_init", "gaussian")
    ('models_min_acc_y_0p99', 'model_bias_init_gaussian')
    """
    return "_".join([*(key_segment(part) for part in path.split(".")), key_segment(level_text)])
