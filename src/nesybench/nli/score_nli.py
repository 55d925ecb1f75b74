"""Score a user's predictions on a real benchmark, with the metric trap made visible.

Predictions are JSONL (or a JSON list) of ``{"id": ..., "prediction": ...[,
"explanation": ...]}``; a prediction is a label of the benchmark (case-insensitive,
``Uncertain`` = Unknown), an option letter (A = True, B = False, C = Unknown),
or ``yes``/``no`` for LogicBench; ``explanation`` is a chain of thought (a list
of sentences or one string).  They are read and counted under the one policy of
:mod:`nesybench.predictions` (the same as ``axes-score``): every gold question counts
in every accuracy, a missing, null or unreadable prediction is not correct, and the
coverage (share answered with a label) stands beside each accuracy.

:func:`score_predictions` returns, over the ``n`` gold questions:

* ``accuracy`` with its Wilson 95% interval, ``coverage``, ``accuracy_answered``, the
  counts ``answered`` / ``abstained`` / ``unreadable``, the ``confusion`` matrix
  (gold -> predicted -> count, ``none`` for no label), ``per_label`` accuracy (recall of
  each gold label) and ``macro_f1`` (the mean over labels present in gold or predictions
  of ``F1_y = 2 TP_y / (2 TP_y + FP_y + FN_y)``; a question without a label is a miss);
* ``baselines`` on the same gold: the majority label and its accuracy
  ``max_y p_y``, the uniform guess ``1/K``, "always Unknown" ``p_Unknown`` where
  Unknown is a label, and the blind-guess range ``[min_y p_y, max_y p_y]`` (what
  any guesser that ignores the input can expect);
* ProofWriter and PrOntoQA: ``per_depth`` accuracy beside the majority baseline of
  that depth, the depth of each question from the reference labeler (Unknown
  questions have no proof: depth None), the
  ``mixture`` of that profile (aggregate under the realized depth mix, the
  uniform mix, and its range over all mixes), and, where predictions carry
  explanations, ``proof_accuracy`` from the step checker beside label accuracy
  (explanations in the benchmark's own grammar);
* LogicBench: ``per_axiom`` and ``per_logic`` accuracy, ``yes_accuracy`` and
  ``no_accuracy`` (the yes-bias), and ``pair_consistency``: the fraction of
  samples whose every question is predicted and right.

Predictions for ids the gold file does not have are an error (naming, when it is so, the
gold records that were skipped as unreadable and carry those ids).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..metrics.mixture import mix_range
from ..metrics.stats import wilson_interval
from ..predictions import NotALabel, PredictionSet, items_of, quote, rate
from ..predictions import read_predictions as read_under_policy
from ..reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from .checker import check_trace
from .labelers import label_questions, summarize_labelings
from .readers import LABELS, BadRecord, Benchmark, normalize_label

#: labels a prediction may take, per benchmark (a model may say Unknown on PrOntoQA)
PREDICTION_LABELS = {
    "prontoqa": ("True", "False", "Unknown"),
    "proofwriter": ("True", "False", "Unknown"),
    "folio": ("True", "False", "Unknown"),
    "logicbench": ("yes", "no"),
}
#: the confusion matrix's column for a question without a label (abstained or unreadable)
NO_LABEL = "none"
#: unknown ids quoted in the error message
SHOW_IDS = 5


@dataclass(frozen=True)
class Predictions:
    """A predictions file read under the policy, with the explanations it carries."""

    path: str
    read: PredictionSet
    explanations: dict[str, tuple[str, ...]]
    ignored_explanations: tuple[str, ...] = ()


def _explanation(record: dict) -> tuple[str, ...] | None:
    explanation = record.get("explanation", record.get("chain_of_thought"))
    if explanation is None:
        return None
    if isinstance(explanation, str):
        explanation = split_sentences(explanation)
    if not isinstance(explanation, list) or not all(isinstance(s, str) for s in explanation):
        raise BadRecord("field 'explanation' must be a list of sentences or a string")
    return tuple(explanation)


def _unknown_hint(bench: Benchmark) -> Callable[[list[str]], str]:
    """The clause that tells ids of skipped gold records from ids of no gold question."""
    skipped = {quote(s.id): s for s in bench.skipped if s.id is not None}

    def hint(unknown: list[str]) -> str:
        theirs = [u for u in unknown if u in skipped]
        if theirs:
            first = skipped[theirs[0]]
            return (
                f"; {len(theirs):,} of them name gold records that were skipped as unreadable "
                f"(first: {theirs[0]} at {first}): fix those records of {bench.path}"
            )
        if bench.skipped:
            return f" ({len(bench.skipped):,} gold records were skipped as unreadable)"
        return ""

    return hint


def read_predictions(
    path: str | Path, *, benchmark: str, gold: Benchmark, strict: bool = False
) -> Predictions:
    """Read a predictions file against ``gold`` (module docstring; :mod:`nesybench.predictions`)."""
    if benchmark not in PREDICTION_LABELS:
        raise InputError(
            f"benchmark must be one of {', '.join(PREDICTION_LABELS)}, got {benchmark!r}"
        )
    labels = PREDICTION_LABELS[benchmark]

    def read_label(value: object, record: dict) -> str:
        try:
            return normalize_label(value, labels)
        except BadRecord as exc:
            raise NotALabel(str(exc)) from None

    read = read_under_policy(
        items_of(str(path)),
        source=str(path),
        gold_ids=[q.id for q in gold.questions],
        read_label=read_label,
        strict=strict,
        gold_name=f"the gold questions of {gold.path}",
        unknown_hint=_unknown_hint(gold),
    )
    explanations: dict[str, tuple[str, ...]] = {}
    ignored: list[str] = []
    for qid, record in read.records.items():
        try:
            chain = _explanation(record)
        except BadRecord as exc:
            if strict:
                raise InputError(f"{path}: id {quote(qid)}: {exc} (--strict)") from None
            ignored.append(f"{quote(qid)}: {exc} (the label is scored, the explanation not)")
            continue
        if chain is not None and read.label(qid) is not None:
            explanations[qid] = chain
    return Predictions(str(path), read, explanations, tuple(ignored))


# ---------------------------------------------------------------- metrics
def _rate(correct: list[bool], labels: list[str | None]) -> dict:
    """:func:`nesybench.predictions.rate` of a group of questions."""
    return rate(sum(correct), sum(p is not None for p in labels), len(correct))


def confusion_matrix(gold: list[str], pred: list[str], labels: Iterable[str]) -> dict:
    """``{gold label: {predicted label: count}}`` over ``labels`` (rows and columns)."""
    labels = list(labels)
    counts = Counter(zip(gold, pred))
    return {g: {p: counts[(g, p)] for p in labels} for g in labels}


def macro_f1(gold: list[str], pred: list[str | None]) -> float:
    """Mean over labels present in ``gold`` or ``pred`` of ``2 TP / (2 TP + FP + FN)``.

    A prediction None (no label) is a miss of its gold label and no label's false positive.

    >>> macro_f1(["a", "a", "b"], ["a", "b", "b"])
    0.6666666666666666
    """
    present = sorted(set(gold) | {p for p in pred if p is not None})
    scores = []
    for y in present:
        tp = sum(g == y and p == y for g, p in zip(gold, pred))
        fp = sum(g != y and p == y for g, p in zip(gold, pred))
        fn = sum(g == y and p != y for g, p in zip(gold, pred))
        scores.append(2 * tp / (2 * tp + fp + fn))
    return sum(scores) / len(scores) if scores else 0.0


def baselines(gold: list[str], labels: tuple[str, ...]) -> dict:
    """Input-blind guessers on ``gold``: majority, uniform, always-Unknown, the blind-guess range.

    With ``p_y`` the share of gold label ``y`` and ``q`` any guessing
    distribution, ``E[acc] = sum_y p_y q_y``, which lies in ``[min_y p_y, max_y p_y]``
    (all mass on the rarest / the most frequent label); the uniform guess scores
    ``1/K`` whatever the mix.

    >>> b = baselines(["True", "True", "False", "Unknown"], ("True", "False", "Unknown"))
    >>> b["majority"], b["uniform"], b["always_unknown"], b["blind_guess_range"]
    ({'label': 'True', 'accuracy': 0.5}, 0.3333333333333333, 0.25, [0.25, 0.5])
    """
    n = len(gold)
    counts = Counter(gold)
    share = {y: counts.get(y, 0) / n if n else 0.0 for y in labels}
    majority = max(labels, key=lambda y: (share[y], -labels.index(y)))
    out: dict[str, Any] = {
        "majority": {"label": majority, "accuracy": share[majority]},
        "uniform": 1.0 / len(labels),
        "blind_guess_range": [min(share.values()), max(share.values())],
        "label_shares": share,
    }
    if "Unknown" in labels:
        out["always_unknown"] = share["Unknown"]
    return out


def _per_depth(questions, correct, labels, labelings) -> tuple[list[dict], dict | None]:
    groups: dict[int | None, list[bool]] = defaultdict(list)
    answers: dict[int | None, list[str | None]] = defaultdict(list)
    golds: dict[int | None, list[str]] = defaultdict(list)
    for q, ok, label, lab in zip(questions, correct, labels, labelings):
        depth = lab.depth if lab.parsed else None
        groups[depth].append(ok)
        answers[depth].append(label)
        golds[depth].append(q.gold)
    rows = []
    for depth in sorted(groups, key=lambda d: (d is None, d if d is not None else 0)):
        stats = _rate(groups[depth], answers[depth])
        # the best input-blind guess within this depth: its majority label's share
        majority = max(Counter(golds[depth]).values()) / len(golds[depth])
        rows.append({"depth": depth, **stats, "majority": majority})
    proved = [r for r in rows if r["depth"] is not None]
    mixture = None
    if proved:
        mixture = {
            "depths": [r["depth"] for r in proved],
            "n": [r["n"] for r in proved],
            "accuracy": [r["accuracy"] for r in proved],
            **mix_range([r["accuracy"] for r in proved], [r["n"] for r in proved]),
        }
    return rows, mixture


def _proof_accuracy(
    questions, explanations, correct, dialect: str, conventions: str = "nesybench"
) -> dict | None:
    """Step-checker verdicts on the explanations (strict under ``conventions``): proof
    accuracy beside label accuracy (over the answered questions whose prediction carries an
    explanation)."""
    checked = [
        (q, explanations[q.id], ok) for q, ok in zip(questions, correct) if q.id in explanations
    ]
    if not checked:
        return None
    strict = []
    label_right = []
    unreadable = 0
    for q, explanation, ok in checked:
        theory = parse_context(q.context, dialect=dialect)
        question = parse_sentence(q.question, dialect=dialect)
        if not theory.ok or question.kind not in ("question", "fact"):
            strict.append(False)
            unreadable += 1
        else:
            trace = list(explanation)
            if conventions == "prontoqa":
                from .prontoqa_eval import verdict as convention_verdict

                v = convention_verdict(trace, theory, question.atom, conventions=conventions)
                strict.append(v["strict"])
            else:
                strict.append(check_trace(trace, theory, question.atom, dialect=dialect).strict)
        label_right.append(ok)
    n = len(checked)
    k_proof = sum(strict)
    k_label = sum(label_right)
    rfwr = sum(ok and not s for ok, s in zip(label_right, strict))
    lo, hi = wilson_interval(k_proof, n)
    return {
        "n": n,
        "label_accuracy": k_label / n,
        "proof_accuracy": k_proof / n,
        "proof_accuracy_lo": lo,
        "proof_accuracy_hi": hi,
        "right_for_wrong_reason": rfwr / n,
        "unreadable_gold": unreadable,
        "conventions": conventions,
    }


def _logicbench(questions, correct, labels) -> dict:
    def grouped(key: Callable) -> dict:
        g: dict[str, tuple[list[bool], list]] = defaultdict(lambda: ([], []))
        for q, ok, label in zip(questions, correct, labels):
            g[key(q)][0].append(ok)
            g[key(q)][1].append(label)
        return {k: _rate(oks, answers) for k, (oks, answers) in sorted(g.items())}

    by_gold = grouped(lambda q: q.gold)
    yes, no = by_gold.get("yes"), by_gold.get("no")
    return {
        "per_axiom": grouped(lambda q: f"{q.logic}/{q.axiom}"),
        "per_logic": grouped(lambda q: q.logic),
        "yes_accuracy": yes["accuracy"] if yes else None,
        "yes_coverage": yes["coverage"] if yes else None,
        "no_accuracy": no["accuracy"] if no else None,
        "no_coverage": no["coverage"] if no else None,
        "n_yes": yes["n"] if yes else 0,
        "n_no": no["n"] if no else 0,
    }


def _pair_consistency(bench: Benchmark, read: PredictionSet) -> dict:
    """The share of samples whose every question is answered and right (over all samples)."""
    samples: dict[tuple[str, str, str], list] = defaultdict(list)
    for q in bench.questions:
        samples[(q.logic, q.axiom, q.sample)].append(q)
    consistent = sum(all(read.label(q.id) == q.gold for q in qs) for qs in samples.values())
    complete = sum(all(read.label(q.id) is not None for q in qs) for qs in samples.values())
    return {
        "pair_consistency": consistent / len(samples) if samples else None,
        "n_samples": len(samples),
        "n_samples_answered": complete,
    }


def score_predictions(
    bench: Benchmark,
    predictions: Predictions,
    *,
    time_limit: float = 10.0,
    progress: Callable | None = None,
    conventions: str = "nesybench",
) -> dict:
    """The ``score-nli`` report (module docstring) of ``predictions`` against ``bench``.

    ``conventions`` is the step checker's reading of explanations: ``nesybench`` or
    ``prontoqa`` (PrOntoQA main's evaluator; PrOntoQA's fragment only).
    """
    if conventions not in ("nesybench", "prontoqa"):
        raise InputError(f"conventions must be nesybench or prontoqa, got {conventions!r}")
    if conventions == "prontoqa" and bench.name != "prontoqa":
        raise InputError(
            f"--conventions prontoqa is PrOntoQA's evaluator and reads PrOntoQA chains only; "
            f"got --benchmark {bench.name}"
        )
    read = predictions.read
    questions = list(bench.questions)
    gold_labels = [q.gold for q in questions]
    pred_labels = [read.label(q.id) for q in questions]
    correct = [g == p for g, p in zip(gold_labels, pred_labels)]
    overall = _rate(correct, pred_labels)
    labels = LABELS[bench.name]
    columns = (*PREDICTION_LABELS[bench.name], NO_LABEL)
    per_label = {}
    for y in labels:
        mask = [g == y for g in gold_labels]
        per_label[y] = _rate(
            [ok for ok, m in zip(correct, mask) if m], [p for p, m in zip(pred_labels, mask) if m]
        )
    policy = read.report(q.id for q in questions)
    report: dict[str, Any] = {
        "benchmark": bench.name,
        "n": overall["n"],
        "n_gold": len(questions),
        "answered": overall["answered"],
        "abstained": policy["abstained"],
        "unreadable": policy["unreadable"],
        "coverage": overall["coverage"],
        "accuracy": overall["accuracy"],
        "accuracy_lo": overall["lo"],
        "accuracy_hi": overall["hi"],
        "accuracy_answered": overall["accuracy_answered"],
        "per_label": per_label,
        "confusion": {
            g: {p: c for p, c in row.items()}
            for g, row in confusion_matrix(
                gold_labels, [p or NO_LABEL for p in pred_labels], columns
            ).items()
            if g in labels
        },
        "macro_f1": macro_f1(gold_labels, pred_labels),
        "baselines": baselines(gold_labels, labels),
        "unreadable_predictions": policy["unreadable_predictions"],
        "skipped_predictions": [*policy["skipped_predictions"], *predictions.ignored_explanations],
        "skipped_gold": [str(s) for s in bench.skipped],
    }
    if bench.name in ("proofwriter", "prontoqa"):
        items = questions if progress is None else progress(questions)
        labelings = label_questions(items, bench.name, time_limit=time_limit)
        report["reference"] = summarize_labelings(labelings)
        report["per_depth"], report["mixture"] = _per_depth(
            questions, correct, pred_labels, labelings
        )
        report["proof"] = _proof_accuracy(
            questions, predictions.explanations, correct, bench.name, conventions
        )
    if bench.name == "logicbench":
        report.update(_logicbench(questions, correct, pred_labels))
        report.update(_pair_consistency(bench, read))
    return report
