"""The benchmark grid: generated questions over declared difficulty axes, one cell per combination.

Each question is a small theory in ProofWriter's templated English (facts
``Anne is big.`` / ``Anne is not big.``, rules ``If something is big and not
red then it is furry.``) and one statement to label.  The axes and their knobs:

``depth``        the proof depth: a chain ``l_0(e) -> l_1 -> ... -> l_d`` of one-condition
                 rules from a stated fact, so the answer is derived at wave exactly ``d``
                 (checked by the forward chainer and by the prover's proof);
``distractors``  ``k`` irrelevant facts and ``k`` irrelevant rules per hop (``k * max(d, 1)``
                 of each) that share a predicate with the proof: branches off the chain
                 (``b :- l_j``), dead ends into it (``l_j :- r`` with ``r`` never true of the
                 queried entity), chain or dead-end facts about other people, branch facts
                 about the queried one.  None of them changes the label or the depth;
``order``        ``canonical`` (facts, then the chain rules in proof order, each hop's
                 distractor rules after it) or ``shuffled`` (a seeded permutation);
``negation``     ``none``: no "not" anywhere, closed-world labels True / False;
                 ``negated``: every predicate of a theory is used in a seeded polarity
                 (negated facts, negated conditions and conclusions), questions plain or
                 negated, open-world labels True / False / Unknown as ProofWriter's;
``vocabulary``   the number of property words the theory's predicates are drawn from
                 (``VOCABULARY[:v]``);
``synonyms``     the rate at which each word of the text is replaced by its synonym.

A wrong answer needs a near miss: a closed-world False or an open-world
Unknown is the same chain broken at a seeded link (the link's rule takes its
condition from a dead-end predicate instead), or, at depth 0, a fact about the
entity with another predicate; an open-world False is the chain concluding the
complement of the statement asked.

Balance: question ``i`` of a cell takes label ``labels[i % L]`` (and, in
negated cells, a plain or negated question by ``i // L``), cells hold a
multiple of ``2 L`` questions, so every cell is exactly balanced over its labels
and "not" in the question says nothing about the label (asserted).

Pairing: the theory of question ``i`` is drawn from a stream named by the
structural coordinates (depth, distractors, negation, vocabulary) only, so the
``order`` and ``synonyms`` levels show the very same theories (shuffled, or
reworded at a higher rate: the rewritten words at a rate are a subset of those
at any higher rate).  Every random choice comes from
:func:`nesybench.seeds.child_rng`; cells do not depend on each other or on
generation order.

Every sentence is rendered by the shared grammar's ProofWriter dialect, and
every question is checked when it is generated: its context and question,
read back by the same dialect (with every synonym known), give the same facts,
rules and statement; the one forward chainer re-derives its label (with
``world="open"`` when negated) and the answer's depth; the prover, given the
rules in their open-world reading, proves the answer at that depth, or proves
neither the statement nor its complement.  The presentations of one theory (its
order and synonym levels) are made together: every one's text is read back whole,
and since they all read back as the same sets of facts and rules, the chainer and
the prover run once per theory (each question is still the one
:func:`grid_question` makes alone; a test holds them equal).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import product

import numpy as np
import pandas as pd

from ..errors import InputError, check_claim
from ..params import schema_fragment, schema_problem
from ..progress import progress
from ..reasoning.chainer import forward_chain
from ..reasoning.grammar.proofwriter import render_proofwriter, render_proofwriter_question
from ..reasoning.grammar.reading import parse_context, parse_sentence, split_sentences
from ..reasoning.grammar.sentence import Lexicon
from ..reasoning.prover import Proof, Prover
from ..reasoning.terms import (
    Atom,
    Literal,
    Rule,
    Theory,
    base_pred,
    complement,
    is_negated,
    negate_pred,
    open_world_rule,
)
from ..seeds import child_rng
from .bank import NAMES, VARIABLE, VOCABULARY
from .lexical import SURFACE_SYNONYMS, rewrite_sentence, surface_lexicon

AXES = ("depth", "distractors", "order", "negation", "vocabulary", "synonyms")
ORDERS = ("canonical", "shuffled")
NEGATIONS = ("none", "negated")
CLOSED_LABELS = ("True", "False")
OPEN_LABELS = ("True", "False", "Unknown")
LETTERS = "ABC"
#: the largest grid :func:`generate_grid` accepts (questions)
MAX_QUESTIONS = 1_000_000
#: the default seed and grid (the first seed of the pipeline's sweep and ``axes.grid`` of the
#: repository's params.yaml; a test keeps them equal), used by ``nesybench axes-export``
DEFAULT_SEED = 0
DEFAULT_LEVELS = {
    "depth": [0, 1, 2, 3],
    "distractors": [0, 2, 4],
    "order": ["canonical", "shuffled"],
    "negation": ["none", "negated"],
    "vocabulary": [8, 32],
    "synonyms": [0.0, 0.1],
}
DEFAULT_PER_CELL = 6


def labels_of(negation: str) -> tuple[str, ...]:
    """The label set of a cell: closed-world without negation, open-world with it."""
    return CLOSED_LABELS if negation == "none" else OPEN_LABELS


def options_of(labels: Sequence[str]) -> list[str]:
    """ProofWriter's options: ``["A) True", "B) False", "C) Unknown"]``."""
    return [f"{LETTERS[i]}) {label}" for i, label in enumerate(labels)]


@dataclass(frozen=True)
class Cell:
    """One combination of axis levels."""

    depth: int
    distractors: int
    order: str
    negation: str
    vocabulary: int
    synonyms: float

    @property
    def key(self) -> str:
        """``d2-x4-shuffled-negated-v32-s0.35``: unique per cell, part of each question id."""
        return (
            f"d{self.depth}-x{self.distractors}-{self.order}-{self.negation}"
            f"-v{self.vocabulary}-s{self.synonyms!r}"
        )

    @property
    def labels(self) -> tuple[str, ...]:
        return labels_of(self.negation)

    def as_dict(self) -> dict:
        return {axis: getattr(self, axis) for axis in AXES}


@dataclass(frozen=True)
class GridSpec:
    """The declared grid: levels per axis (full factorial) and questions per cell."""

    depth: tuple[int, ...] = tuple(DEFAULT_LEVELS["depth"])
    distractors: tuple[int, ...] = tuple(DEFAULT_LEVELS["distractors"])
    order: tuple[str, ...] = tuple(DEFAULT_LEVELS["order"])
    negation: tuple[str, ...] = tuple(DEFAULT_LEVELS["negation"])
    vocabulary: tuple[int, ...] = tuple(DEFAULT_LEVELS["vocabulary"])
    synonyms: tuple[float, ...] = tuple(DEFAULT_LEVELS["synonyms"])
    per_cell: int = DEFAULT_PER_CELL

    def __post_init__(self) -> None:
        _check_spec(self)

    @classmethod
    def from_params(
        cls, grid: Mapping, *, where: str = "axes.grid", source: str = "params.yaml"
    ) -> GridSpec:
        """The spec of an ``axes.grid`` params section (``per_cell`` and ``levels``) of the
        params file ``source`` (named in every error)."""
        if not isinstance(grid, Mapping) or not isinstance(grid.get("levels"), Mapping):
            raise InputError(f"{source}: {where} must hold 'per_cell' and 'levels'")
        levels = grid["levels"]
        missing = [a for a in (*AXES, "per_cell") if a not in (*levels, *grid)]
        if missing or sorted(levels) != sorted(AXES):
            raise InputError(
                f"{source}: {where}.levels must name exactly the axes {', '.join(AXES)} "
                f"(and {where}.per_cell is required), got {', '.join(map(str, levels))}"
            )
        try:
            return cls(
                **{axis: tuple(levels[axis]) for axis in AXES}, per_cell=int(grid["per_cell"])
            )
        except InputError as exc:
            raise InputError(f"{source}: {where}.{exc}") from None

    def cells(self) -> list[Cell]:
        """Every combination, in declared order (depth slowest)."""
        return [Cell(*levels) for levels in product(*(getattr(self, a) for a in AXES))]

    @property
    def cell_size(self) -> int:
        """``per_cell`` rounded up to a multiple of every cell's balance unit (2 L, or L)."""
        unit = math.lcm(*(_balance_unit(n) for n in self.negation))
        return unit * math.ceil(self.per_cell / unit)

    @property
    def n_questions(self) -> int:
        return len(self.cells()) * self.cell_size


def _balance_unit(negation: str) -> int:
    """Questions per balanced block: each label once (and plain and negated, when negated)."""
    return len(labels_of(negation)) * (2 if negation == "negated" else 1)


def _schema_value(value: object) -> object:
    """A numpy scalar as the Python number the schema checks (a tuple as a list)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (tuple, list)):
        return [_schema_value(v) for v in value]
    return value


@cache
def _grid_schema() -> dict:
    """The schema of ``axes.grid``'s ``levels`` and ``per_cell``, read from
    ``workflow/schemas/axes.schema.yaml``: the one statement of their ranges."""
    grid = schema_fragment("axes.schema.yaml", "/properties/grid/properties")
    return {
        "type": "object",
        "properties": {"levels": grid["levels"], "per_cell": grid["per_cell"]},
    }


def _form(items: Mapping) -> str:
    """The schema of one level, in words: ``integers in [0, 20]``, ``one of none, negated``."""
    if "enum" in items:
        return f"one of {', '.join(map(str, items['enum']))}"
    kind = "integers" if items.get("type") == "integer" else "numbers"
    return f"{kind} in [{items.get('minimum', '-inf')}, {items.get('maximum', 'inf')}]"


def level_problem(axis: str, value: object) -> str | None:
    """The form ``value`` misses as a level of ``axis`` (one of :data:`AXES`), or None.

    The schema states each axis's levels (``axes.grid.levels`` in
    ``workflow/schemas/axes.schema.yaml``): :class:`GridSpec` checks a grid against it, and
    ``axes-score`` the cells of a grid file with this.
    """
    value = _schema_value(value)
    if isinstance(value, (list, dict)):  # a level is one scalar
        return _form(_level_schema(axis))
    return _level_problem(axis, type(value), value)  # the type keeps 1, 1.0 and True apart


def _level_schema(axis: str) -> dict:
    return _grid_schema()["properties"]["levels"]["properties"][axis]["items"]


@cache
def _level_problem(axis: str, kind: type, value: object) -> str | None:
    """:func:`level_problem`, once per distinct level (a grid file repeats a few levels)."""
    items = _level_schema(axis)
    if kind is bool or schema_problem(value, items) is not None:
        return _form(items)
    return None


def _check_spec(spec: GridSpec) -> None:
    """The schema's ranges (:func:`_grid_schema`), then the cross-level limits it cannot state
    (one message each, naming the key)."""
    problem = schema_problem(
        {
            "levels": {axis: _schema_value(getattr(spec, axis)) for axis in AXES},
            "per_cell": _schema_value(spec.per_cell),
        },
        _grid_schema(),
    )
    if problem is not None:
        raise InputError(problem)
    d_max = max(spec.depth)
    for v in spec.vocabulary:
        if not d_max + 3 <= v <= len(VOCABULARY):
            raise InputError(
                f"levels.vocabulary: each size must be in [max depth + 3, {len(VOCABULARY)}] = "
                f"[{d_max + 3}, {len(VOCABULARY)}] (a depth-{d_max} chain takes {d_max + 1} words, "
                f"and dead ends and branches need one each), got {v}"
            )
    for d, k, v in product(spec.depth, spec.distractors, spec.vocabulary):
        need = k * max(d, 1)
        n_dead = max(1, (v - d - 1) // 2)
        rooms = {
            "rules": (d + 1) * (v - d - 1) - 1,
            "facts": (d + 1 + n_dead) * (len(NAMES) - 1) + (v - d - 1 - n_dead) - 1,
        }
        for what, room in rooms.items():
            if need > room:
                raise InputError(
                    f"levels: {k} distractor {what} per hop at depth {d} need {need} distinct "
                    f"irrelevant {what}, but a vocabulary of {v} words has room for {room}; "
                    "use fewer distractors or a larger vocabulary"
                )
    n = spec.n_questions
    if n > MAX_QUESTIONS:
        raise InputError(
            f"per_cell: the grid would hold {n:,} questions ({len(spec.cells()):,} cells x "
            f"{spec.cell_size}); the limit is {MAX_QUESTIONS:,}"
        )


@dataclass(frozen=True)
class GridQuestion:
    """One generated question with its gold label, gold proof and cell coordinates."""

    id: str
    cell: Cell
    index: int
    label: str
    statement: Atom  # the atom the question asks about (``not_p(e)`` for a negated question)
    theory: Theory  # canonical facts and rules (the words before synonyms)
    context: str  # the text a system reads (order and synonyms applied)
    question: str
    proof: tuple[str, ...]  # canonical sentences: fact, rule, derived fact, ...; () without one
    answer_depth: int | None  # wave of the deciding derivation; None when nothing decides it
    sentences: tuple[str, ...] = field(default=(), repr=False)  # the context, one per sentence

    @property
    def labels(self) -> tuple[str, ...]:
        return self.cell.labels

    @property
    def answer(self) -> str:
        return LETTERS[self.labels.index(self.label)]

    def record(self) -> dict:
        """The export record: ProofWriter's ``id, context, question, options, answer`` plus
        ``cell`` and ``proof``."""
        return {
            "id": self.id,
            "context": self.context,
            "question": self.question,
            "options": options_of(self.labels),
            "answer": self.answer,
            "cell": self.cell.as_dict(),
            "proof": list(self.proof),
        }


# --------------------------------------------------------------------------- one question


@dataclass
class _Draft:
    """A theory under construction: canonical sentences in their canonical slots."""

    facts: list[Atom] = field(default_factory=list)
    chain: list[Rule] = field(default_factory=list)  # chain rule of hop j at index j - 1
    hop_rules: dict[int, list[Rule]] = field(default_factory=dict)  # hop -> distractor rules

    def rules(self) -> list[Rule]:
        out = []
        for hop in range(max(len(self.chain), 1) + 1):
            if 1 <= hop <= len(self.chain):
                out.append(self.chain[hop - 1])
            out += self.hop_rules.get(hop, [])
        return out


def _unary_rule(head: str, body: str) -> Rule:
    """``If something is [not] body then it is [not] head.`` as ProofWriter states it: a negated
    condition is a negated literal (the open world reads it as the explicit ``not_body``), a
    negated conclusion the reified atom ``not_head``."""
    x = (VARIABLE,)
    condition = Literal(Atom(base_pred(body), x), positive=not is_negated(body))
    return Rule(Atom(head, x), (condition,))


def _pick(rng: np.random.Generator, pools: list[list], m: int) -> list:
    """``m`` distinct items: each draw picks a non-empty pool uniformly, then an item in it."""
    pools = [list(p) for p in pools]
    out = []
    for _ in range(m):
        live = [p for p in pools if p]
        pool = live[int(rng.integers(len(live)))]
        out.append(pool.pop(int(rng.integers(len(pool)))))
    return out


def _build_theory(cell: Cell, index: int, rng: np.random.Generator) -> tuple[_Draft, Atom, str]:
    """The canonical theory of question ``index`` of a cell (structure only), its statement and
    its label."""
    labels = cell.labels
    label = labels[index % len(labels)]
    open_world = cell.negation == "negated"
    negated_question = open_world and (index // len(labels)) % 2 == 1
    d, v = cell.depth, cell.vocabulary

    words = [VOCABULARY[int(i)] for i in rng.permutation(v)]
    chain_words, rest = words[: d + 1], words[d + 1 :]
    dead = rest[: max(1, len(rest) // 2)]  # conditions never true of the queried entity
    branch = rest[len(dead) :]  # conclusions only: never a condition
    # one draw per word, in order, when negated (as many as scalar draws would take)
    polarity = dict(zip(words, (rng.random(v) < 0.5).tolist() if open_world else [False] * v))
    lit = {w: negate_pred(w) if polarity[w] else w for w in words}.__getitem__  # word -> literal

    names = [NAMES[int(i)] for i in rng.permutation(len(NAMES))]
    entity, others = names[0], names[1:]
    statement = Atom(("not_" if negated_question else "") + chain_words[d], (entity,))
    if label == "True":
        last = statement.pred
    elif label == "False" and open_world:
        last = complement(statement).pred
    else:  # a near miss: closed-world False, or Unknown (ending in either polarity)
        flip = bool(rng.random() < 0.5)
        last = complement(statement).pred if open_world and flip else statement.pred
    chain = [lit(w) for w in chain_words[:d]] + [last]
    broken = label == "Unknown" or (label == "False" and not open_world)

    draft = _Draft()
    if broken and d == 0:
        draft.facts.append(Atom(lit(branch[int(rng.integers(len(branch)))]), (entity,)))
    else:
        draft.facts.append(Atom(chain[0], (entity,)))
    draft.chain = [_unary_rule(chain[j], chain[j - 1]) for j in range(1, d + 1)]
    cut = None  # the dead end that replaces a link of a broken chain: (j, dead word)
    if broken and d >= 1:
        cut = (int(rng.integers(1, d + 1)), dead[int(rng.integers(len(dead)))])
        draft.chain[cut[0] - 1] = _unary_rule(chain[cut[0]], lit(cut[1]))

    # Distractors: k facts and k rules per hop, each sharing a predicate with the proof chain.
    # Candidates are (kind, chain position, word); only the picked ones become rules and atoms.
    m = cell.distractors * max(d, 1)
    pools = [
        [("dead", j, r) for j in range(d + 1) for r in dead if (j, r) != cut],  # l_j :- r
        [("branch", j, b) for j in range(d + 1) for b in branch],  # b :- l_j
    ]
    for kind, j, word in _pick(rng, pools, m):
        rule = (
            _unary_rule(chain[j], lit(word)) if kind == "dead" else _unary_rule(lit(word), chain[j])
        )
        draft.hop_rules.setdefault(max(j, 1), []).append(rule)
    stated = draft.facts[0]
    fact_pools = [
        [(chain[j], o) for j in range(d + 1) for o in others],
        [(lit(r), o) for r in dead for o in others],
        [(lit(b), entity) for b in branch if Atom(lit(b), (entity,)) != stated],
    ]
    draft.facts += [Atom(pred, (who,)) for pred, who in _pick(rng, fact_pools, m)]
    return draft, statement, label


def _proof_sentences(proof: Proof) -> tuple[str, ...]:
    out: list[str] = []
    for step in proof.steps():
        if step.rule is not None:
            out.append(render_proofwriter(step.rule))
        out.append(render_proofwriter(step.fact))
    return tuple(out)


@cache
def _reading_lexicon(vocabulary: int) -> Lexicon:
    return surface_lexicon(VOCABULARY[:vocabulary])


def lexicon_for(text: str, lexicon: Lexicon) -> Lexicon:
    """``lexicon`` cut down to the entries that occur in ``text`` (the same reading: synonyms and
    canonical words are disjoint, so no rewrite can create another entry's match), which keeps
    the grammar's per-entry normalisation cheap on a large vocabulary."""
    lowered = text.lower()
    return Lexicon(synonyms={k: v for k, v in lexicon.synonyms.items() if k in lowered})


@dataclass(frozen=True)
class _Derivation:
    """What the chainer and the prover make of a theory's reading: the proof and its depth."""

    proof: tuple[str, ...]
    depth: int | None


@dataclass
class _Shared:
    """Question ``index`` of a structure: what every presentation of it shares.

    The order and synonym levels of a grid re-present the same theory (the module docstring's
    pairing), so its sampling, canonical rendering, surface draws and derivation are made once
    here and reused by each presentation.  Each presentation's text is still read back whole
    (:func:`_read_back`); what a sentence reads as is memoised by its text.
    """

    cell: Cell  # the first cell of the structure asked for (its structural coordinates)
    index: int
    seed: int
    split: str
    statement: Atom
    label: str
    facts: tuple[Atom, ...]
    rules: tuple[Rule, ...]
    entities: tuple[str, ...]
    texts: tuple[str, ...]  # the sentences in canonical order, then the question; no synonyms
    readings: SentenceReader  # the structure's memo of sentence readings
    items: dict = field(default_factory=dict)  # each distinct fact and rule -> its slot
    slots: dict = field(default_factory=dict)  # sentence -> the slot it reads as, -1 for none
    draws: tuple[tuple[float, ...], ...] | None = None  # per text, one per vocabulary word
    surfaces: dict = field(default_factory=dict)  # synonym rate -> texts rewritten at that rate
    perm: tuple[int, ...] | None = None  # the shuffled order
    derivation: _Derivation | None = None  # derived from the first presentation read back

    def __post_init__(self) -> None:
        self.items = {item: i for i, item in enumerate(dict.fromkeys((*self.facts, *self.rules)))}
        self.surfaces[0.0] = self.texts  # a rate of 0 rewrites nothing

    def _stream(self, name: str) -> np.random.Generator:
        return child_rng(self.seed, "grid", self.split, name, *structure_key(self.cell), self.index)

    def surface(self, prob: float) -> tuple[str, ...]:
        """The texts at synonym rate ``prob``: :func:`rewrite_sentence` over the one stream of
        surface draws, taken in reading order whatever the rate (a text none of whose draws is
        below ``prob`` is left as it is, as the rewrite would leave it)."""
        if prob not in self.surfaces:
            if self.draws is None:
                stream = _uniforms(self._stream("surface"))
                self.draws = tuple(
                    tuple(next(stream) for _ in range(_vocabulary_words(t))) for t in self.texts
                )
            self.surfaces[prob] = tuple(
                rewrite_sentence(text, iter(draws), prob=prob)
                if draws and min(draws) < prob
                else text
                for text, draws in zip(self.texts, self.draws)
            )
        return self.surfaces[prob]

    def shuffled(self) -> tuple[int, ...]:
        """The permutation of the sentences that the ``shuffled`` order shows (drawn once)."""
        if self.perm is None:
            self.perm = tuple(
                int(i) for i in self._stream("order").permutation(len(self.texts) - 1)
            )
        return self.perm

    def slot(self, sentence: str) -> int:
        """The slot of the fact or rule ``sentence`` reads as, -1 when it reads as none of the
        theory's (or does not parse, or is a question)."""
        slot = self.slots.get(sentence)
        if slot is None:
            value = self.readings.read(sentence).value
            slot = self.slots[sentence] = self.items.get(value, -1) if value is not None else -1
        return slot


def _vocabulary_words(sentence: str) -> int:
    """How many draws :func:`rewrite_sentence` takes on ``sentence`` (one per vocabulary word)."""
    return sum(token.rstrip(".?,") in SURFACE_SYNONYMS for token in sentence.split(" "))


_LETTERS = re.compile("[a-z]+")


class SentenceReader:
    """The grammar's ProofWriter reading of sentences through ``lexicon``, memoised.

    ``read(s)`` is ``parse_sentence(s, lexicon=lexicon_for(s, lexicon), dialect="proofwriter")``
    and ``context(text)`` is ``parse_context(text, ...)`` with that reading of each sentence
    (the lexicon cut to each sentence reads as the lexicon cut to the whole text, see
    :func:`lexicon_for`).  The grammar normalises synonyms first and parses the normalised
    text with no lexicon, so the strict parse is memoised on the normalised text: every
    presentation of a sentence that reads as the same words is parsed once.  The memo holds
    at most ``max_entries`` texts (then starts afresh).
    """

    def __init__(self, lexicon: Lexicon, *, max_entries: int = 1 << 17) -> None:
        self.lexicon = lexicon
        self.max_entries = max_entries
        # entries of lower-case letters only (every lexicon of this package) match exactly the
        # sentence's maximal runs of letters equal to them: found without scanning the lexicon
        self._words = all(_LETTERS.fullmatch(k) for k in lexicon.synonyms)
        self._by_text: dict = {}
        self._by_normal: dict = {}

    def _cut(self, sentence: str) -> Lexicon:
        if not self._words:
            return lexicon_for(sentence, self.lexicon)
        synonyms = self.lexicon.synonyms
        words = _LETTERS.findall(sentence.lower())
        return Lexicon(synonyms={w: synonyms[w] for w in words if w in synonyms})

    def read(self, sentence: object):
        """The sentence's :class:`~nesybench.reasoning.grammar.sentence.ParseResult`."""
        if not isinstance(sentence, str):
            return parse_sentence(sentence, dialect="proofwriter")
        reading = self._by_text.get(sentence)
        if reading is None:
            if len(self._by_text) >= self.max_entries:
                self._by_text.clear()
                self._by_normal.clear()
            normal = " ".join(sentence.split())
            cut = self._cut(normal)
            if cut.synonyms:
                normal = " ".join(cut.normalize(normal).split())
            reading = self._by_normal.get(normal)
            if reading is None:
                reading = self._by_normal[normal] = parse_sentence(normal, dialect="proofwriter")
            self._by_text[sentence] = reading
        return reading

    def context(self, text: object) -> Theory:
        """Every sentence of a context read
        (:func:`~nesybench.reasoning.grammar.reading.parse_context`: questions and unreadable
        sentences are failures)."""
        return parse_context(text, dialect="proofwriter", read=self.read)


def _share(
    cell: Cell, index: int, *, seed: int, split: str, readings: SentenceReader | None = None
) -> _Shared:
    """Sample and render question ``index`` of ``cell``'s structure, once for its presentations
    (``readings``: the memo of sentence readings of its structure, or a fresh one)."""
    structure = structure_key(cell)
    draft, statement, label = _build_theory(
        cell, index, child_rng(seed, "grid", split, "theory", *structure, index)
    )
    rules = draft.rules()
    entities = tuple(sorted({a.args[0] for a in draft.facts} | {statement.args[0]}))
    canonical = [render_proofwriter(f) for f in draft.facts]
    canonical += [render_proofwriter(r) for r in rules]
    world = "open" if cell.negation == "negated" else "closed"
    question = render_proofwriter_question(statement, world=world)
    readings = SentenceReader(_reading_lexicon(cell.vocabulary)) if readings is None else readings
    return _Shared(
        cell, index, seed, split, statement, label, tuple(draft.facts), tuple(rules), entities,
        (*canonical, question), readings,
    )  # fmt: skip


def _read_back(shared: _Shared, qid: str, context: str, question: str) -> None:
    """Read the rendered text back: every sentence of the context must read as a fact or rule
    of the theory and every one of those must be read (the same sets), the question as the
    statement (asserted)."""
    slots = set()
    for sentence in split_sentences(context):
        slot = shared.slot(sentence)
        if slot < 0:  # (the message is built only on failure: this loop is the hot path)
            check_claim(
                False,
                f"grid question {qid}: the rendered context must read back as its theory "
                f"({sentence!r} reads as {shared.readings.read(sentence).value or 'nothing'})",
            )
        slots.add(slot)
    check_claim(
        len(slots) == len(shared.items),
        f"grid question {qid}: the rendered context must read back as its theory "
        f"(it states {len(slots)} of its {len(shared.items)} facts and rules)",
    )
    asked = shared.readings.read(question)
    check_claim(
        asked.kind == "question" and asked.atom == shared.statement,
        f"grid question {qid}: the question must read back as {shared.statement}, "
        f"got {asked.value}",
    )


def _derive(cell: Cell, qid: str, parsed: Theory, statement: Atom, label: str) -> _Derivation:
    """Re-derive the label, the depth and the proof from a theory as read back (asserted).

    The chainer's label and depths are functions of the sets of facts and rules, which every
    presentation of a theory reads back equal (asserted per question), so this runs once per
    theory.  The prover's proof would follow rule order if an atom had two proofs; none of the
    grid's has: dead-end words are never concluded and branch words are never conditions.
    """
    open_world = cell.negation == "negated"
    closure = forward_chain(parsed.facts, parsed.rules, world="open" if open_world else "closed")
    derived = closure.label(statement)
    if not open_world and derived == "Unknown":
        derived = "False"  # closed world: what does not follow is false
    check_claim(
        derived == label, f"grid question {qid}: the chainer labels it {derived}, not {label}"
    )
    # The prover knows negation as failure only: it gets the rules in their open-world reading.
    rules = [open_world_rule(r) for r in parsed.rules] if open_world else parsed.rules
    prover = Prover(parsed.facts, rules)
    decided = {"True": statement, "False": complement(statement) if open_world else None}
    target = decided.get(label)
    if target is None:
        for atom in (statement, complement(statement)) if open_world else (statement,):
            check_claim(
                prover.prove(atom) is None,
                f"grid question {qid} ({label}): the prover must not prove {atom}",
            )
        return _Derivation((), None)
    proof = prover.prove(target)
    check_claim(
        proof is not None and proof.depth == cell.depth and closure.depth(target) == cell.depth,
        f"grid question {qid}: {target} must be derived at depth {cell.depth} by the chainer and "
        f"the prover, got {closure.depth(target)} and {proof.depth if proof else None}",
    )
    return _Derivation(_proof_sentences(proof), cell.depth)


def _uniforms(rng: np.random.Generator):
    """An endless stream of uniform draws, taken in blocks."""
    while True:
        yield from rng.random(64).tolist()


def structure_key(cell: Cell) -> tuple:
    """The coordinates that fix a theory (order and synonyms only re-present it)."""
    return (cell.depth, cell.distractors, cell.negation, cell.vocabulary)


def _present(shared: _Shared, cell: Cell) -> GridQuestion:
    """One presentation of a shared theory: ``cell``'s order and synonym rate applied, the text
    read back, the label re-derived (once per theory)."""
    qid = f"{cell.key}-q{shared.index}"
    *sentences, question = shared.surface(cell.synonyms)
    if cell.order == "shuffled":
        sentences = [sentences[i] for i in shared.shuffled()]
    context = " ".join(sentences)
    _read_back(shared, qid, context, question)
    if shared.derivation is None:
        parsed = shared.readings.context(context)
        shared.derivation = _derive(cell, qid, parsed, shared.statement, shared.label)
    theory = Theory(shared.facts, shared.rules, entities=shared.entities, key=(shared.split, qid))
    return GridQuestion(
        qid,
        cell,
        shared.index,
        shared.label,
        shared.statement,
        theory,
        context,
        question,
        shared.derivation.proof,
        shared.derivation.depth,
        tuple(sentences),
    )


def grid_question(cell: Cell, index: int, *, seed: int, split: str = "eval") -> GridQuestion:
    """Question ``index`` of ``cell``: generated, rendered and re-derived from its text.

    >>> q = grid_question(Cell(1, 0, "canonical", "none", 8, 0.0), 0, seed=15)
    >>> q.label, q.answer, len(q.proof)
    ('True', 'A', 3)
    """
    return _present(_share(cell, index, seed=seed, split=split), cell)


# --------------------------------------------------------------------------- the grid


def generate_grid(
    spec: GridSpec, *, seed: int, split: str = "eval", cells: Iterable[Cell] | None = None
) -> list[GridQuestion]:
    """Every question of the grid (or of ``cells``), cell by cell in declared order; balance
    asserted.

    Questions are made theory by theory (every presentation of one theory together, see
    :class:`_Shared`) and listed in declared order; each is the question
    :func:`grid_question` makes alone.
    """
    cells = spec.cells() if cells is None else list(cells)
    size = spec.cell_size
    structures: dict[tuple, list[Cell]] = {}
    for cell in dict.fromkeys(cells):
        structures.setdefault(structure_key(cell), []).append(cell)

    def theories():
        for members in structures.values():
            # one memo of sentence readings per structure (its theories share words and
            # names), dropped when the next structure starts
            readings = SentenceReader(_reading_lexicon(members[0].vocabulary))
            for i in range(size):
                yield members, i, readings

    total = len(structures) * size
    made: dict[tuple[Cell, int], GridQuestion] = {}
    for members, i, readings in progress(
        theories(), desc=f"grid theories ({split})", total=total, every=max(1, total // 10)
    ):
        shared = _share(members[0], i, seed=seed, split=split, readings=readings)
        for cell in members:
            made[cell, i] = _present(shared, cell)
    questions = [made[cell, i] for cell in cells for i in range(size)]
    check_balance(questions)
    return questions


def check_balance(questions: Sequence[GridQuestion]) -> None:
    """Every cell exactly balanced over its labels, and over plain/negated questions per label."""
    by_cell: dict[str, list[GridQuestion]] = {}
    for q in questions:
        by_cell.setdefault(q.cell.key, []).append(q)
    for key, qs in by_cell.items():
        counts = {label: sum(q.label == label for q in qs) for label in qs[0].labels}
        check_claim(
            len(set(counts.values())) == 1,
            f"grid cell {key}: labels must be exactly balanced, got {counts}",
        )
        if qs[0].cell.negation == "negated":
            for label in counts:
                plain = sum(q.label == label and not is_negated(q.statement.pred) for q in qs)
                check_claim(
                    2 * plain == counts[label],
                    f"grid cell {key}: half of the {label} questions must be negated, got "
                    f"{counts[label] - plain}/{counts[label]}",
                )


def grid_table(questions: Sequence[GridQuestion]) -> pd.DataFrame:
    """One row per question, in generation order (``position``): ``id``, the axis columns,
    ``index``, ``label``, ``answer``, ``n_options``, ``answer_depth`` (-1 when nothing decides
    it), ``context``, ``question``, ``proof`` (JSON list)."""
    rows = []
    for position, q in enumerate(questions):
        rows.append(
            {
                "position": position,
                "id": q.id,
                **q.cell.as_dict(),
                "index": q.index,
                "label": q.label,
                "answer": q.answer,
                "n_options": len(q.labels),
                "answer_depth": -1 if q.answer_depth is None else q.answer_depth,
                "context": q.context,
                "question": q.question,
                "proof": json.dumps(list(q.proof)),
            }
        )
    return pd.DataFrame(rows)


def records_from_table(table: pd.DataFrame) -> list[dict]:
    """The export records of a :func:`grid_table` (in generation order, so every axis lists its
    levels in declared order), with plain Python values.

    >>> qs = generate_grid(GridSpec(depth=(0,), distractors=(0,), per_cell=2), seed=0)
    >>> records_from_table(grid_table(qs)) == [q.record() for q in qs]
    True
    """
    casts = {"depth": int, "distractors": int, "order": str, "negation": str}
    casts |= {"vocabulary": int, "synonyms": float}
    records = []
    for row in table.sort_values("position", kind="mergesort").itertuples(index=False):
        cell = {axis: casts[axis](getattr(row, axis)) for axis in AXES}
        records.append(
            {
                "id": str(row.id),
                "context": str(row.context),
                "question": str(row.question),
                "options": options_of(labels_of(cell["negation"])),
                "answer": str(row.answer),
                "cell": cell,
                "proof": json.loads(row.proof),
            }
        )
    return records


def grid_jsonl(questions: Iterable[GridQuestion]) -> str:
    """The export file's text: one JSON object per line, keys in ProofWriter's order."""
    return "".join(json.dumps(q.record(), ensure_ascii=False) + "\n" for q in questions)
