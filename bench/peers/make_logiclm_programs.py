"""New Logic-LM-format programs (none from Logic-LM's outputs) for checking the ``logic-lm``
semantics against Logic-LM's own solvers on text nesybench was not developed on.

Writes two program files in Logic-LM's record format (``id, answer, options,
raw_logic_programs``):

* ``own_folio.json`` -- FOLIO-style first-order programs drawn over a small vocabulary that
  makes Logic-LM's hazards likely: predicate names that are prefixes of others (``Dog`` /
  ``DogOwner``), constants equal to a predicate after capitalisation (``dog``), multi-word
  constants, one-letter constants (``a``, ``x``), one predicate at two arities, free
  variables in conclusions, quantifiers inside parentheses, ``⊕``, names with ``.`` ``-``
  ``[`` ``]``;
* ``own_proofwriter.json`` -- Pyke-path programs (ProofWriter's sections) with rules whose
  head variable the body does not bind, ``$y`` heads, rules left in ``Facts:``, facts with
  ``$x``, relation queries, values other than ``True``/``False``, blank rule lines.

Every choice comes from ``nesybench.seeds.child_rng(SEED, ...)``; the files are deterministic.
Run: python bench/peers/make_logiclm_programs.py OUT_DIR [N_FOLIO N_PROOFWRITER]
then bench/peers/peer_logiclm.py on each file (see its docstring) for the peer's verdicts.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from nesybench.seeds import child_rng

SEED = 2023
PREDICATES = [
    "Dog", "DogOwner", "Human", "Humans", "Mortal", "Likes", "Owns", "Cat", "Catalog",
    "Pet", "Student", "Young", "Tall", "Taller", "American", "AmericanCity", "Plunger",
    "Red", "Reader", "Green",
]  # fmt: skip
CONSTANTS = [
    "bob", "alice", "dog", "plunger", "human", "rex", "captain america", "new york",
    "a", "b", "x", "tom", "catalog", "humans", "year1990", "mr.smith", "gpt-3", "[list",
    "item]", "amy",
]  # fmt: skip
CONSTANT_WEIGHTS = [1.0] * 15 + [0.15] * 4 + [1.0]
CONSTANT_WEIGHTS = [w / sum(CONSTANT_WEIGHTS) for w in CONSTANT_WEIGHTS]
VARIABLES = ["x", "y", "z"]
OPS = ["∧", "∨", "→", "↔", "⊕"]


def _pick(rng, items, p=None):
    return items[int(rng.choice(len(items), p=p))]


def _atom(rng, bound: list[str], arity_of: dict) -> str:
    pred = _pick(rng, PREDICATES)
    arity = arity_of.setdefault(pred, 1 if rng.random() < 0.75 else 2)
    if rng.random() < 0.08:
        arity = 3 - arity  # the same predicate at another arity (a Prover9 fatal error)
    args = []
    for _ in range(arity):
        if bound and rng.random() < 0.6:
            args.append(_pick(rng, bound))
        else:
            # the names nltk or the lexer cannot read come last and rarely
            args.append(_pick(rng, CONSTANTS, p=CONSTANT_WEIGHTS))
    lit = f"{pred}({', '.join(args)})"
    return ("¬" + lit) if rng.random() < 0.2 else lit


def _formula(rng, bound: list[str], arity_of: dict, depth: int = 0) -> str:
    r = rng.random()
    if depth < 2 and r < 0.35:
        parts = [_formula(rng, bound, arity_of, depth + 1) for _ in range(int(rng.integers(2, 4)))]
        text = parts[0]
        for part in parts[1:]:
            text += f" {_pick(rng, OPS)} {part}"
        return f"({text})" if rng.random() < 0.5 else text
    if depth < 2 and r < 0.45:
        return f"¬({_formula(rng, bound, arity_of, depth + 1)})"
    if depth and 0.45 <= r < 0.49:
        var = _pick(rng, VARIABLES)
        # a quantifier inside parentheses: outside Logic-LM's Prover9 grammar
        return f"(∀{var} {_formula(rng, [*bound, var], arity_of, depth + 1)})"
    return _atom(rng, bound, arity_of)


def _quantified(rng, arity_of: dict) -> str:
    n = int(rng.choice([0, 1, 1, 2]))
    bound = [VARIABLES[k] for k in range(n)]
    prefix = "".join(f"{'∀' if rng.random() < 0.7 else '∃'}{v} " for v in bound)
    body = _formula(rng, bound, arity_of)
    if n and not body.startswith("("):
        body = f"({body})"
    lead = "¬" if n and rng.random() < 0.1 else ""
    return f"{lead}{prefix}{body}".strip()


def folio_programs(n: int) -> list[dict]:
    out = []
    for i in range(n):
        rng = child_rng(SEED, "folio", i)
        arity_of: dict = {}
        premises = [_quantified(rng, arity_of) for _ in range(int(rng.integers(2, 6)))]
        if rng.random() < 0.15:
            # a conclusion with a free variable (Prover9 closes it, and its negation, apart)
            conclusion = f"{_pick(rng, PREDICATES)}(x)"
        else:
            conclusion = _quantified(rng, arity_of)
        lines = ["Predicates:", "Dog(x) ::: x is a dog.", "Premises:"]
        lines += [f"{p} ::: premise {k}" for k, p in enumerate(premises)]
        lines += ["Conclusion:", f"{conclusion} ::: the conclusion"]
        out.append(_record(f"FOLIO_own_{i}", "ABC"[i % 3], 3, "\n".join(lines)))
    return out


def _patom(rng, pred: str, subj: str) -> str:
    value = _pick(rng, ["True", "False", "True", "true", "1"], p=[0.5, 0.35, 0.05, 0.05, 0.05])
    return f"{pred}({subj}, {value})"


def proofwriter_programs(n: int) -> list[dict]:
    preds = ["Cold", "Quiet", "Red", "Smart", "Kind", "Round", "Big"]
    people = ["Bob", "Anne", "Gary", "Fiona"]
    out = []
    for i in range(n):
        rng = child_rng(SEED, "proofwriter", i)
        facts = [
            _patom(rng, _pick(rng, preds), _pick(rng, people))
            for _ in range(int(rng.integers(0, 6)))
        ]
        if rng.random() < 0.1:
            facts.append(f"{_pick(rng, preds)}($x, True)")  # dropped silently by Logic-LM
        rules = []
        for _ in range(int(rng.integers(1, 6)) if rng.random() < 0.9 else 0):
            body_var = _pick(rng, ["$x", "$x", "$y", _pick(rng, people)])
            head_var = _pick(rng, ["$x", "$x", "$x", _pick(rng, people)], p=[0.5, 0.2, 0.2, 0.1])
            body = " && ".join(
                _patom(rng, _pick(rng, preds), body_var) for _ in range(int(rng.integers(1, 3)))
            )
            rules.append(f"{body} >>> {_patom(rng, _pick(rng, preds), head_var)}")
        if rng.random() < 0.1:
            facts.append(rules.pop() if rules else "Big(Bob, True) >>> Red(Bob, True)")
        if rng.random() < 0.05:
            rules.insert(0, "")  # a blank first rule line
        heads = [r.split(">>>")[1].strip() for r in rules if ">>>" in r] + facts
        if heads and rng.random() < 0.6:
            query = _pick(rng, heads)  # often a statement the program can derive or refute
        else:
            query = _patom(rng, _pick(rng, preds), _pick(rng, people))
        if rng.random() < 0.08:
            query = f"Likes({_pick(rng, people)}, {_pick(rng, people)}, True)"  # a relation
        text = "Predicates:\nCold($x, bool) ::: Is x cold?\n\nFacts:\n"
        text += "".join(f"{f} ::: a fact\n" for f in facts)
        text += "\nRules:\n" + "".join(f"{r} ::: a rule\n" for r in rules)
        text += f"\nQuery:\n{query} ::: the query"
        out.append(_record(f"ProofWriter_own_{i}", "ABC"[i % 3], 3, text))
    return out


#: hand-made cases, each one behaviour of Logic-LM's solvers (the issue's examples among them)
PYKE_CASES = {
    # a head variable the body does not bind: the rule fires / never fires / binds only $y
    "unbound_fires": (
        "Cold(Gary, True)",
        "Cold(Gary, True) >>> Smart($x, True)",
        "Cold(Gary, True)",
    ),
    "unbound_never": (
        "Cold(Gary, True)",
        "Cold(Bob, True) >>> Smart($x, True)",
        "Cold(Gary, True)",
    ),
    "unbound_y": ("Cold(Gary, True)", "Cold($y, True) >>> Smart($x, True)", "Cold(Gary, True)"),
    "unbound_late": (
        "Cold(Gary, True)",
        "Cold($x, True) >>> Big($x, True)\nBig(Gary, True) >>> Red($z, True)",
        "Big(Gary, True)",
    ),
    "chain": ("Cold(Bob, True)", "Cold($x, True) >>> Big($x, True)", "Big(Bob, True)"),
}
FOLIO_CASES = {
    "free_goal": (["P(a)", "¬P(b)"], "P(x)"),
    "free_goal_true": (["∀x P(x)"], "P(x)"),
    "free_goal_false": (["∀x ¬P(x)"], "P(x)"),
    "free_premise": (["P(x)"], "P(a)"),
    "vacuum": (
        ["Vacuum(roomba)", "∀x (Vacuum(x) → Machine(x))", "Clean(vacuum)"],
        "Machine(roomba)",
    ),
    "plunger": (["Plunger(plunger)", "Tool(plunger)"], "Tool(plunger)"),
    "humans": (
        ["∀x (Human(x) → Mortal(x))", "Human(humans) ∧ Mortal(socrates)"],
        "Mortal(socrates)",
    ),
    "american": (["American(bob)", "AmericanCity(boston)"], "American(bob)"),
    "prefix_in_scope": (["∃x (Human(x) ∧ Humans(y))"], "Human(y)"),
    "two_arities": (["Owns(bob)", "Owns(bob, rex)"], "Owns(bob)"),
    "left_grouping": (["Q(a)"], "P(a) → Q(a) ∧ R(a)"),
    "quantifier_in_parens": (["∀x (P(x) → (∃y Q(y)))", "P(a)"], "Q(b)"),
    "inconsistent": (["P(a)", "¬P(a)"], "Q(b)"),
    "xor": (["P(a) ⊕ Q(a)", "P(a)"], "Q(a)"),
    "dotted_name": (["Value(yale, 42.3billion)"], "Value(yale, 42.3billion)"),
    "bracket_names": (["List(r, [a1, b1, c1])", "Q(a1)"], "Q(a1)"),
}


def case_programs() -> tuple[list[dict], list[dict]]:
    pw = []
    for name, (facts, rules, query) in PYKE_CASES.items():
        text = f"Predicates:\nCold($x, bool)\nFacts:\n{facts}\nRules:\n{rules}\nQuery:\n{query}"
        pw.append(_record(f"ProofWriter_case_{name}", "A", 3, text))
    folio = []
    for name, (premises, conclusion) in FOLIO_CASES.items():
        text = "Premises:\n" + "\n".join(premises) + f"\nConclusion:\n{conclusion}"
        folio.append(_record(f"FOLIO_case_{name}", "A", 3, text))
    return pw, folio


def _record(rid: str, answer: str, k: int, program: str) -> dict:
    options = ["A) True", "B) False", "C) Unknown"][:k]
    return {"id": rid, "answer": answer, "options": options, "raw_logic_programs": [program]}


def main(argv: list[str]) -> int:
    out = Path(argv[0])
    n_folio = int(argv[1]) if len(argv) > 1 else 300
    n_pw = int(argv[2]) if len(argv) > 2 else 300
    out.mkdir(parents=True, exist_ok=True)
    pw_cases, folio_cases = case_programs()
    for name, records in (
        ("own_folio.json", folio_cases + folio_programs(n_folio)),
        ("own_proofwriter.json", pw_cases + proofwriter_programs(n_pw)),
    ):
        (out / name).write_text(json.dumps(records, indent=1, ensure_ascii=False) + "\n")
        print(f"{out / name}: {len(records)} programs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
