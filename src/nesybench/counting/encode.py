"""DIMACS encodings of "alpha preserves every observed label".

Every auxiliary variable below is *defined* (a Tseitin equivalence), so it is a
function of the projection variables: the projected count and the plain count
of each encoding are equal, and any #SAT solver, projected or not, counts the
same number from the DIMACS file.

* :func:`knowledge_cnf` -- K itself over x1..xk (parity through an XOR chain);
  its model count is the size of the label-1 class.
* :func:`joint_encoding` -- one k-bit image ``alpha(g)`` per state; its model
  count is N_opt of the ``joint`` extractor family.
* :func:`disentangled_encoding` -- a permutation ``pi`` of the concepts and one
  of four bit maps ``f_j`` per output concept; its model count is the number of
  pairs ``(pi, f)`` whose map ``alpha(g)_j = f_j(g_pi(j))`` preserves the labels.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..logic.cnf import CNF, IdPool, clauses_over
from ..logic.knowledge import Knowledge, all_states, parse_state

__all__ = [
    "encode_label",
    "knowledge_cnf",
    "joint_encoding",
    "disentangled_encoding",
    "bit_maps_encoding",
    "F_NAMES",
]

# Bit maps of the disentangled family, indexed by code = 2 * t + v where t says
# "constant" and v is the negation flag (t = 0) or the constant's value (t = 1).
F_NAMES = ("identity", "negation", "constant 0", "constant 1")


def _xor_def(out: int, a: int, b: int) -> list[list[int]]:
    """Clauses of ``out <-> (a xor b)``."""
    return [[-out, a, b], [-out, -a, -b], [out, -a, b], [out, a, -b]]


def encode_label(
    knowledge: Knowledge, out_vars: Sequence[int], label: int, pool: IdPool, *, tag: object
) -> list[list[int]]:
    """Clauses forcing ``K(out_vars) == label``; auxiliary variables are named ``(tag, ...)`` in
    ``pool``."""
    out_vars = list(out_vars)
    if knowledge.is_parity:
        # q_i <-> o_1 xor ... xor o_i, built left to right; then fix q_k.
        clauses: list[list[int]] = []
        acc = out_vars[0]
        for i in range(1, len(out_vars)):
            q = pool.id((tag, "parity", i))
            clauses.extend(_xor_def(q, acc, out_vars[i]))
            acc = q
        clauses.append([acc if label else -acc])
        return clauses
    mapped = clauses_over(knowledge.cnf, out_vars)
    if label:
        return mapped
    # Label 0: some clause is falsified.  u_i <-> "every literal of clause i is false".
    clauses = []
    flags = []
    for i, clause in enumerate(mapped):
        u = pool.id((tag, "falsified", i))
        flags.append(u)
        clauses.extend([[-u, -lit] for lit in clause])
        clauses.append([u, *clause])
    clauses.append(flags)
    return clauses


def knowledge_cnf(knowledge: Knowledge) -> CNF:
    """K as a CNF over x1..xk (ids 1..k), projected on them; #models = |{g : K(g) = 1}|."""
    pool = IdPool()
    xs = [pool.id(("x", j)) for j in range(1, knowledge.k + 1)]
    clauses = encode_label(knowledge, xs, 1, pool, tag="K")
    comments = (
        f"knowledge K over x1..x{knowledge.k}: {knowledge.describe()}",
        "model count = size of the label-1 class",
    )
    return CNF(tuple(map(tuple, clauses)), max(pool.top, knowledge.k), tuple(xs), comments)


def _checked(knowledge: Knowledge, states: Sequence[str]) -> list[tuple[int, ...]]:
    return [parse_state(s, knowledge.k) for s in states]


def joint_encoding(
    knowledge: Knowledge, support: Sequence[str], *, supervised: Sequence[str] = ()
) -> CNF:
    """Variables ``alpha[g][j]`` (bit j of the image of state g) for all 2^k states.

    Observed state g: ``K(alpha[g]) = K(g)``; supervised state g: ``alpha[g] = g``;
    unobserved states are unconstrained.  #models (projected on alpha) = N_opt.
    """
    k = knowledge.k
    pool = IdPool()
    states = all_states(k)
    names = ["".join(map(str, row)) for row in states]
    image = {g: [pool.id(("alpha", g, j)) for j in range(1, k + 1)] for g in names}
    observed = _checked(knowledge, support)
    labels = knowledge.labels(observed) if observed else []
    clauses: list[list[int]] = []
    for g_bits, label in zip(observed, labels):
        g = "".join(map(str, g_bits))
        clauses.extend(encode_label(knowledge, image[g], int(label), pool, tag=("joint", g)))
    for g in supervised:
        bits = parse_state(g, k)
        clauses.extend([[v if b else -v] for v, b in zip(image[g], bits)])
    projection = tuple(v for g in names for v in image[g])
    comments = (
        f"joint extractor, k = {k}: bit j of alpha(g) is variable k * int(g, 2) + j",
        f"knowledge: {knowledge.describe()}",
        f"support: {','.join(sorted(support))}",
        f"supervised: {','.join(sorted(supervised)) or '-'}",
        "model count (projected on alpha) = N_opt",
    )
    return CNF(tuple(map(tuple, clauses)), pool.top, projection, comments)


def disentangled_encoding(
    knowledge: Knowledge,
    support: Sequence[str],
    *,
    supervised: Sequence[str] = (),
    fixed_permutation: bool = False,
) -> CNF:
    """Variables ``pi[j]=c`` (one-hot permutation), ``t[j]``, ``v[j]`` (the bit map f_j).

    For each observed state g and output concept j an auxiliary ``o[g][j]`` is
    defined as ``f_j(g_pi(j))`` and ``K(o[g]) = K(g)`` is required; a supervised
    state also requires ``o[g] = g``.  #models (projected on pi, t, v) = number of
    pairs (pi, f) whose map preserves every observed label.
    """
    k = knowledge.k
    pool = IdPool()
    concepts = range(1, k + 1)
    pi = {(j, c): pool.id(("pi", j, c)) for j in concepts for c in concepts}
    t = {j: pool.id(("t", j)) for j in concepts}
    v = {j: pool.id(("v", j)) for j in concepts}
    clauses: list[list[int]] = []
    # pi is a permutation: exactly one source per output, exactly one output per source.
    for j in concepts:
        clauses.append([pi[j, c] for c in concepts])
        clauses.append([pi[c, j] for c in concepts])
        for c1 in concepts:
            for c2 in range(c1 + 1, k + 1):
                clauses.append([-pi[j, c1], -pi[j, c2]])
                clauses.append([-pi[c1, j], -pi[c2, j]])
    if fixed_permutation:
        clauses.extend([[pi[j, j]] for j in concepts])

    def source_bit(j: int, ones: tuple[int, ...]) -> int:
        # s <-> g_pi(j), i.e. pi(j) is one of the concepts that are 1 in g.
        name = ("s", j, ones)
        if name in pool:
            return pool.id(name)
        s = pool.id(name)
        clauses.append([-s, *[pi[j, c] for c in ones]])
        clauses.extend([[s, -pi[j, c]] for c in ones])
        return s

    observed = _checked(knowledge, support)
    labels = knowledge.labels(observed) if observed else []
    outputs: dict[str, list[int]] = {}
    for g_bits, label in zip(observed, labels):
        g = "".join(map(str, g_bits))
        ones = tuple(c for c in concepts if g_bits[c - 1])
        out = []
        for j in concepts:
            s = source_bit(j, ones)
            o = pool.id(("o", g, j))
            # o <-> (t ? v : s xor v)
            clauses.extend([[-t[j], -o, v[j]], [-t[j], o, -v[j]]])
            clauses.extend(
                [
                    [t[j], -o, s, v[j]],
                    [t[j], -o, -s, -v[j]],
                    [t[j], o, -s, v[j]],
                    [t[j], o, s, -v[j]],
                ]
            )
            out.append(o)
        outputs[g] = out
        clauses.extend(encode_label(knowledge, out, int(label), pool, tag=("dis", g)))
    for g in supervised:
        bits = parse_state(g, k)
        clauses.extend([[o if b else -o] for o, b in zip(outputs[g], bits)])
    projection = tuple([*pi.values(), *t.values(), *v.values()])
    comments = (
        f"disentangled extractor, k = {k}: pi[j]=c is variable (j-1)*k + c; "
        f"t[j] = {k * k} + j; v[j] = {k * k + k} + j",
        "f_j = identity (t=0,v=0), negation (t=0,v=1), constant 0 (t=1,v=0), constant 1 (t=1,v=1)",
        f"knowledge: {knowledge.describe()}",
        f"support: {','.join(sorted(support))}",
        f"supervised: {','.join(sorted(supervised)) or '-'}",
        f"fixed permutation: {'yes' if fixed_permutation else 'no'}",
        "model count (projected on pi, t, v) = N_opt",
    )
    return CNF(tuple(map(tuple, clauses)), pool.top, projection, comments)


def bit_maps_encoding(knowledge: Knowledge, inputs, labels, *, pinned=()) -> CNF:
    """The disentangled family with pi fixed: which bit maps f preserve the labels.

    Variable ``a[j][b]`` (id ``2 (j - 1) + b + 1``) is f_j(b); the pair
    (a[j][0], a[j][1]) is one of the four maps: (0, 1) identity, (1, 0)
    negation, (0, 0) constant 0, (1, 1) constant 1.  Row ``i`` of ``inputs``
    (n, k) is the bit vector feeding the outputs (``g_pi(j)`` for a state g),
    and requires ``K(a[1][h_1], ..., a[k][h_k]) = labels[i]``; ``pinned`` is a
    sequence of ``(row, target bits)`` that also require the outputs to equal
    the target (supervision).  #models (projected on a) = number of f.
    """
    k = knowledge.k
    pool = IdPool()
    a = {(j, b): pool.id(("a", j, b)) for j in range(1, k + 1) for b in (0, 1)}
    clauses: list[list[int]] = []
    for i, (row, label) in enumerate(zip(inputs, labels)):
        out = [a[j, int(row[j - 1])] for j in range(1, k + 1)]
        clauses.extend(encode_label(knowledge, out, int(label), pool, tag=("row", i)))
    for i, target in pinned:
        out = [a[j, int(inputs[i][j - 1])] for j in range(1, k + 1)]
        clauses.extend([[o if bit else -o] for o, bit in zip(out, target)])
    return CNF(tuple(map(tuple, clauses)), max(pool.top, 2 * k), tuple(a.values()))
