"""Score a user's predictions on a real benchmark, with the metric trap made visible.

Predictions are JSONL (or a JSON list) of ``{"id": ..., "prediction": ...[,
"explanation": ...]}``; a prediction is a label of the benchmark (case-insensitive,
``Uncertain`` = Unknown), an option letter (A = True, B = False, C = Unknown),
or ``yes``/``no`` for LogicBench; ``explanation`` is a chain of thought (a list
of sentences or one string).

:func:`score_predictions` returns, over the gold questions that have a
prediction (``n`` of them; ``coverage = n / #gold``):

* ``accuracy`` with its Wilson 95% interval, the ``confusion`` matrix
  (gold -> predicted -> count), ``per_label`` accuracy (recall of each gold
  label) and ``macro_f1`` (the mean over labels present in gold or predictions
  of ``F1_y = 2 TP_y / (2 TP_y + FP_y + FN_y)``);
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

Predictions for ids the gold file does not have are an error; a record that
cannot be read (no id, an unknown label) is skipped and counted.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import UserError
from ..metrics.mixture import mix_range
from ..metrics.stats import wilson_interval
from ..reasoning.grammar import parse_context, parse_sentence, split_sentences
from .checker import check_trace
from .labelers import label_questions, summarize_labelings
from .readers import LABELS, BadRecord, Benchmark, Skip, load_records, normalize_label, record_id

#: labels a prediction may take, per benchmark (a model may say Unknown on PrOntoQA)
PREDICTION_LABELS = {
    "prontoqa": ("True", "False", "Unknown"),
    "proofwriter": ("True", "False", "Unknown"),
    "folio": ("True", "False", "Unknown"),
    "logicbench": ("yes", "no"),
}
#: unknown ids quoted in the error message
SHOW_IDS = 5


@dataclass(frozen=True)
class Prediction:
    id: str
    label: str
    explanation: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Predictions:
    path: str
    by_id: dict[str, Prediction]
    skipped: tuple[Skip, ...] = ()


def read_predictions(path: str | Path, *, benchmark: str) -> Predictions:
    """Read a predictions file (module docstring); duplicate ids are an error."""
    if benchmark not in PREDICTION_LABELS:
        raise UserError(
            f"benchmark must be one of {', '.join(PREDICTION_LABELS)}, got {benchmark!r}"
        )
    records = load_records(path, what="predictions")
    labels = PREDICTION_LABELS[benchmark]
    by_id: dict[str, Prediction] = {}
    first_at: dict[str, int] = {}
    skipped: list[Skip] = []
    for index, record in enumerate(records):
        try:
            if isinstance(record, BadRecord):
                raise record
            if not isinstance(record, dict):
                raise BadRecord(f"record must be a JSON object, got {type(record).__name__}")
            if "id" not in record or record["id"] is None:
                raise BadRecord("missing field 'id'")
            pid = record_id(record, ("id",), index)
            if "prediction" not in record:
                raise BadRecord("missing field 'prediction'")
            label = normalize_label(record["prediction"], labels)
            explanation = record.get("explanation", record.get("chain_of_thought"))
            if explanation is not None:
                if isinstance(explanation, str):
                    explanation = split_sentences(explanation)
                if not isinstance(explanation, list) or not all(
                    isinstance(s, str) for s in explanation
                ):
                    raise BadRecord("field 'explanation' must be a list of sentences or a string")
                explanation = tuple(explanation)
        except BadRecord as exc:
            skipped.append(Skip(f"record {index}", str(exc)))
            continue
        if pid in first_at:
            raise UserError(
                f"{path}: duplicate prediction id {pid!r} (records {first_at[pid]} and {index})"
            )
        first_at[pid] = index
        by_id[pid] = Prediction(pid, label, explanation)
    if not by_id:
        first = f"; first problem: {skipped[0]}" if skipped else ""
        raise UserError(f"{path}: no usable prediction in {len(records)} records{first}")
    return Predictions(str(path), by_id, tuple(skipped))


# ---------------------------------------------------------------- metrics
def _rate(k: int, n: int) -> dict:
    lo, hi = wilson_interval(k, n)
    return {"n": n, "correct": k, "accuracy": k / n if n else None, "lo": lo, "hi": hi}


def confusion_matrix(gold: list[str], pred: list[str], labels: Iterable[str]) -> dict:
    """``{gold label: {predicted label: count}}`` over ``labels`` (rows and columns)."""
    labels = list(labels)
    counts = Counter(zip(gold, pred))
    return {g: {p: counts[(g, p)] for p in labels} for g in labels}


def macro_f1(gold: list[str], pred: list[str]) -> float:
    """Mean over labels present in ``gold`` or ``pred`` of ``2 TP / (2 TP + FP + FN)``.

    >>> macro_f1(["a", "a", "b"], ["a", "b", "b"])
    0.6666666666666666
    """
    present = sorted(set(gold) | set(pred))
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


def _per_depth(scored, correct, labelings) -> tuple[list[dict], dict | None]:
    groups: dict[int | None, list[bool]] = defaultdict(list)
    golds: dict[int | None, list[str]] = defaultdict(list)
    for q, ok, lab in zip(scored, correct, labelings):
        depth = lab.depth if lab.parsed else None
        groups[depth].append(ok)
        golds[depth].append(q.gold)
    rows = []
    for depth in sorted(groups, key=lambda d: (d is None, d if d is not None else 0)):
        rate = _rate(sum(groups[depth]), len(groups[depth]))
        # the best input-blind guess within this depth: its majority label's share
        majority = max(Counter(golds[depth]).values()) / len(golds[depth])
        rows.append({"depth": depth, **rate, "majority": majority})
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


def _proof_accuracy(scored, preds, correct, dialect: str, conventions: str) -> dict | None:
    """Step-checker verdicts on the explanations (strict under ``conventions``): proof
    accuracy beside label accuracy."""
    checked = [
        (q, preds[q.id], ok)
        for q, ok in zip(scored, correct)
        if preds[q.id].explanation is not None
    ]
    if not checked:
        return None
    strict = []
    label_right = []
    unreadable = 0
    for q, pred, ok in checked:
        theory = parse_context(q.context, dialect=dialect)
        question = parse_sentence(q.question, dialect=dialect)
        if not theory.ok or question.kind not in ("question", "fact"):
            strict.append(False)
            unreadable += 1
        else:
            trace = list(pred.explanation)
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


def _logicbench(scored, correct) -> dict:
    def grouped(key: Callable) -> dict:
        g: dict[str, list[bool]] = defaultdict(list)
        for q, ok in zip(scored, correct):
            g[key(q)].append(ok)
        return {k: _rate(sum(v), len(v)) for k, v in sorted(g.items())}

    yes = [ok for q, ok in zip(scored, correct) if q.gold == "yes"]
    no = [ok for q, ok in zip(scored, correct) if q.gold == "no"]
    return {
        "per_axiom": grouped(lambda q: f"{q.logic}/{q.axiom}"),
        "per_logic": grouped(lambda q: q.logic),
        "yes_accuracy": sum(yes) / len(yes) if yes else None,
        "no_accuracy": sum(no) / len(no) if no else None,
        "n_yes": len(yes),
        "n_no": len(no),
    }


def _pair_consistency(bench: Benchmark, preds: dict[str, Prediction]) -> dict:
    samples: dict[tuple[str, str, str], list] = defaultdict(list)
    for q in bench.questions:
        samples[(q.logic, q.axiom, q.sample)].append(q)
    complete = [qs for qs in samples.values() if all(q.id in preds for q in qs)]
    consistent = sum(all(preds[q.id].label == q.gold for q in qs) for qs in complete)
    return {
        "pair_consistency": consistent / len(complete) if complete else None,
        "n_samples": len(complete),
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
        raise UserError(f"conventions must be nesybench or prontoqa, got {conventions!r}")
    if conventions == "prontoqa" and bench.name != "prontoqa":
        raise UserError(
            f"--conventions prontoqa is PrOntoQA's evaluator and reads PrOntoQA chains only; "
            f"got --benchmark {bench.name}"
        )
    gold = bench.by_id()
    unknown = [pid for pid in predictions.by_id if pid not in gold]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:SHOW_IDS])
        more = f" and {len(unknown) - SHOW_IDS} more" if len(unknown) > SHOW_IDS else ""
        raise UserError(
            f"{predictions.path}: {len(unknown)} prediction id(s) not in the gold file "
            f"{bench.path}: {shown}{more}"
        )
    preds = predictions.by_id
    scored = [q for q in bench.questions if q.id in preds]
    gold_labels = [q.gold for q in scored]
    pred_labels = [preds[q.id].label for q in scored]
    correct = [g == p for g, p in zip(gold_labels, pred_labels)]
    n = len(scored)
    k = sum(correct)
    lo, hi = wilson_interval(k, n)
    labels = LABELS[bench.name]
    columns = PREDICTION_LABELS[bench.name]
    per_label = {}
    for y in labels:
        hits = [ok for g, ok in zip(gold_labels, correct) if g == y]
        per_label[y] = {"n": len(hits), "accuracy": sum(hits) / len(hits) if hits else None}
    report: dict[str, Any] = {
        "benchmark": bench.name,
        "n": n,
        "n_gold": len(gold),
        "coverage": n / len(gold),
        "accuracy": k / n,
        "accuracy_lo": lo,
        "accuracy_hi": hi,
        "per_label": per_label,
        "confusion": {
            g: {p: c for p, c in row.items()}
            for g, row in confusion_matrix(gold_labels, pred_labels, columns).items()
            if g in labels
        },
        "macro_f1": macro_f1(gold_labels, pred_labels),
        "baselines": baselines(gold_labels, labels),
        "skipped_predictions": [str(s) for s in predictions.skipped],
        "skipped_gold": [str(s) for s in bench.skipped],
    }
    if bench.name in ("proofwriter", "prontoqa"):
        items = scored if progress is None else progress(scored)
        labelings = label_questions(items, bench.name, time_limit=time_limit)
        report["reference"] = summarize_labelings(labelings)
        report["per_depth"], report["mixture"] = _per_depth(scored, correct, labelings)
        report["proof"] = _proof_accuracy(scored, preds, correct, bench.name, conventions)
    if bench.name == "logicbench":
        report.update(_logicbench(scored, correct))
        report.update(_pair_consistency(bench, preds))
    return report
