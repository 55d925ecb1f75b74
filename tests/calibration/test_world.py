"""The academic KG, the labelled set and the stratified split."""

from __future__ import annotations

import numpy as np
import pytest

from nesybench.calibration.world import build_labelled, load_world, stratified_split
from nesybench.errors import InputError


def test_world_sizes_match_spec():
    w = load_world()
    assert len(w.entities) == 13
    assert len(w.known_true) == 18 and len(w.train) == 15 and len(w.heldout) == 3
    assert set(w.relations) == {"advises", "authored", "affiliated", "cites"}


def test_labelled_set_positives_corruptions_and_distinctness():
    w = load_world()
    lab = build_labelled(w, corruptions=6, seed=0)
    assert len(lab) == 126 and lab["label"].sum() == 18
    triples = list(zip(lab["head"], lab["relation"], lab["tail"]))
    assert len(set(triples)) == 126  # no duplicates anywhere
    known = set(w.known_true)
    neg = lab[lab["label"] == 0]
    assert not any(t in known for t in zip(neg["head"], neg["relation"], neg["tail"]))
    assert neg.groupby("parent").size().eq(6).all() and neg["parent"].nunique() == 18
    for row in neg.itertuples():
        parent = lab.loc[row.parent]
        changed = (row.head != parent["head"]) + (row.tail != parent["tail"])
        assert row.relation == parent["relation"] and changed == 1


def test_labelled_set_is_seeded():
    w = load_world()
    a, b = build_labelled(w, corruptions=6, seed=3), build_labelled(w, corruptions=6, seed=3)
    c = build_labelled(w, corruptions=6, seed=4)
    assert a.equals(b) and not a.equals(c)


def test_stratified_split_keeps_class_ratio():
    labels = np.r_[np.ones(18, dtype=int), np.zeros(108, dtype=int)]
    split = stratified_split(labels, seed=0)
    for half in ("cal", "eval"):
        part = labels[split == half]
        assert len(part) == 63 and part.sum() == 9
    assert np.array_equal(split, stratified_split(labels, seed=0))


def test_too_many_corruptions_is_a_user_error():
    with pytest.raises(InputError, match="corruptions"):
        build_labelled(load_world(), corruptions=200, seed=0, max_redraws=50)


@pytest.mark.parametrize(
    "text, message",
    [
        ("entities: {a: [x]}\n", "keys must be"),
        ("entities: {p: [x, x]}\nrelations: [r]\ntriples: []\n", "unique"),
        ("entities: {p: [x]}\nrelations: [r]\ntriples: [[x, r, y]]\n", "unknown entity"),
        ("entities: {p: [x]}\nrelations: [r]\ntriples: [[x, r, x, maybe]]\n", "triples\\[0\\]"),
        ("entities: [\n", "not valid YAML"),
    ],
)
def test_bad_world_file_is_one_clear_error(tmp_path, text, message):
    path = tmp_path / "world.yaml"
    path.write_text(text)
    with pytest.raises(InputError, match=message):
        load_world(path)


@pytest.mark.parametrize("fraction", [0.3, 0.5, 0.7])
def test_stratified_split_fraction_per_class(fraction):
    labels = np.r_[np.ones(18, dtype=int), np.zeros(108, dtype=int)]
    split = stratified_split(labels, seed=1, fraction=fraction)
    for cls, n in ((1, 18), (0, 108)):
        assert abs(np.sum((split == "cal") & (labels == cls)) - fraction * n) <= 0.5
