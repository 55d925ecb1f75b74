# axes: difficulty as controlled knobs (spec ch15)
#   generate  RuleTaker-lite depth bank: layered theories, balanced questions (asserted 50/50 per
#             depth, "not" uninformative), depth by the forward chainer, labels re-derived by the
#             prover; lexical rewrites (5-entry synonym table, p = 0.35)
#   count     realized depth mix pi_d; design arithmetic (15 / 2,187 / 385 / 841,995)
#   train     soft reasoner: logistic regression on local features, depths 0-1 only
#   score     per-depth factorization (coverage x acc-on-parsed vs soft reasoner), synonym x depth,
#             flip probe, mixture ties, the seven pinned gadgets; every claim asserted


rule axes_generate:
    """axes: depth-stratified, label-balanced question bank with lexical rewrites."""
    input:
        code=code("generate", "axes"),
    output:
        **stage_outputs("axes", "generate"),
    params:
        section=section("axes"),
    shell:
        "python stages/generate.py axes"


rule axes_count:
    """axes: realized depth mix of each split; factorial design arithmetic."""
    input:
        questions=rules.axes_generate.output.questions,
        code=code("count", "axes"),
    output:
        **stage_outputs("axes", "count"),
    params:
        section=section("axes"),
    shell:
        "python stages/count.py axes"


rule axes_train:
    """axes: soft reasoner (bag of local features) trained on depths 0-1."""
    input:
        bank=rules.axes_generate.output.bank,
        questions=rules.axes_generate.output.questions,
        code=code("train", "axes"),
    output:
        **stage_outputs("axes", "train"),
    params:
        section=section("axes"),
    shell:
        "python stages/train.py axes"


rule axes_score:
    """axes: per-depth factorization, synonym x depth, flip probe, mixture ties, seven gadgets."""
    input:
        bank=rules.axes_generate.output.bank,
        questions=rules.axes_generate.output.questions,
        depth_mix=rules.axes_count.output.depth_mix,
        soft_reasoner=rules.axes_train.output.soft_reasoner,
        code=code("score", "axes"),
    output:
        **stage_outputs("axes", "score"),
    params:
        section=section("axes"),
    shell:
        "python stages/score.py axes"


REPORT_INPUTS["axes"] = all_artifacts("axes")

PLOTS[rules.axes_score.output.plot_per_depth] = {
    "id": "axes-per_depth",
    "x": "depth",
    "y": ["soft_reasoner", "overall", "coverage_strict", "coverage", "acc_on_parsed"],
    "template": "linear",
    "title": "axes: per-depth accuracy of the soft reasoner and the translate-then-prove pipeline",
    "x_label": "proof depth",
    "y_label": "accuracy / coverage",
}
