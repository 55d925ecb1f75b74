# axes: difficulty as controlled knobs (spec ch15)
# One job per seed for everything sampled; the aggregate summarises the sweep.
#   generate  seed       RuleTaker-lite depth bank (balanced 50/50 per depth, "not" uninformative,
#                        labels re-derived by the prover) with lexical rewrites; the difficulty
#                        grid (depth, distractors, order, negation, vocabulary, synonyms) and its
#                        training grid, every label re-derived from the rendered text
#   count                realized depth mix pi_d of every seed's bank; design arithmetic
#   train     seed       soft reasoner on the bank's depths 0-1, and on the training grid
#   score     seed       bank: per-depth factorization beside the soft reasoner, synonym x depth,
#                        flip probe, mixture ties; grid: three reference systems' profiles;
#                        structural claims asserted on the seed
#   score     gadgets    the seven pinned gadgets (the seeded semantics draw on every seed)
#   score     aggregate  distributions, claim rates, exhibit seed, profiles over seeds
#   score     variant    knob level x seed: the depth bank again with one knob changed
#   score     sensitivity  every claim at every measured knob level; mixture numbers per level


rule axes_generate_seed:
    """axes: one seed's depth bank with lexical rewrites, and its two difficulty grids."""
    input:
        code=code("generate", "axes"),
    output:
        **stage_outputs("axes", "generate", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("axes", "generate", "seed"),
    shell:
        "python stages/generate.py axes seed --arg seed={wildcards.seed}"


rule axes_count:
    """axes: realized depth mix of every seed's bank; factorial design arithmetic."""
    input:
        code=code("count", "axes"),
        questions=instances("axes", "generate", "seed", "questions"),
    output:
        **stage_outputs("axes", "count"),
    params:
        section=section("axes"),
    shell:
        "python stages/count.py axes"


rule axes_train_seed:
    """axes: one seed's soft reasoners (bank depths 0-1; the training grid)."""
    input:
        code=code("train", "axes"),
        bank=rules.axes_generate_seed.output.bank,
        questions=rules.axes_generate_seed.output.questions,
        grid_train=rules.axes_generate_seed.output.grid_train,
    output:
        **stage_outputs("axes", "train", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("axes", "train", "seed"),
    shell:
        "python stages/train.py axes seed --arg seed={wildcards.seed}"


rule axes_score_seed:
    """axes: one seed's bank tables (per depth, synonyms, flip, mixture) and grid profiles."""
    input:
        code=code("score", "axes"),
        bank=rules.axes_generate_seed.output.bank,
        questions=rules.axes_generate_seed.output.questions,
        grid=rules.axes_generate_seed.output.grid,
        soft_reasoner=rules.axes_train_seed.output.soft_reasoner,
        grid_soft_reasoner=rules.axes_train_seed.output.grid_soft_reasoner,
    output:
        **stage_outputs("axes", "score", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("axes", "score", "seed"),
    shell:
        "python stages/score.py axes seed --arg seed={wildcards.seed}"


rule axes_score_gadgets:
    """axes: the seven gadgets, completeness pinned in each."""
    input:
        code=code("score", "axes"),
    output:
        **stage_outputs("axes", "score", "gadgets"),
    params:
        section=section("axes"),
    shell:
        "python stages/score.py axes gadgets"


rule axes_score_aggregate:
    """axes: distributions and claim rates over seeds; the exhibit seed; profiles over seeds."""
    input:
        code=code("score", "axes"),
        summaries=instances("axes", "score", "seed", "summary"),
        per_depth=instances("axes", "score", "seed", "per_depth"),
        profiles=instances("axes", "score", "seed", "grid_profile"),
        interactions=instances("axes", "score", "seed", "grid_interaction"),
        answers=instances("axes", "score", "seed", "grid_answers"),
        grids=instances("axes", "generate", "seed", "grid"),
    output:
        **stage_outputs("axes", "score", "aggregate"),
    params:
        section=section("axes"),
    shell:
        "python stages/score.py axes aggregate"


rule axes_score_variant:
    """axes: one knob level, one seed: the depth bank generated, trained and scored with it."""
    input:
        code=code("score", "axes"),
    output:
        **stage_outputs("axes", "score", "variant"),
    wildcard_constraints:
        variant=VARIANT_PATTERN,
        seed=SEED_PATTERN,
    params:
        section=job_section("axes", "score", "variant"),
    shell:
        "python stages/score.py axes variant --arg variant={wildcards.variant} "
        "--arg seed={wildcards.seed}"


rule axes_score_sensitivity:
    """axes: every claim at every measured knob level; the mixture numbers at each level."""
    input:
        code=code("score", "axes"),
        summaries=instances("axes", "score", "seed", "summary"),
        depth_mix=rules.axes_count.output.depth_mix,
        variants=instances("axes", "score", "variant", "variant_summary"),
    output:
        **stage_outputs("axes", "score", "sensitivity"),
    params:
        section=section("axes"),
    shell:
        "python stages/score.py axes sensitivity"


REPORT_INPUTS["axes"] = all_artifacts("axes")

PLOTS[rules.axes_score_aggregate.output.plot_per_depth] = {
    "id": "axes-per_depth",
    "x": "depth",
    "y": ["soft_reasoner", "overall", "coverage_strict", "coverage", "acc_on_parsed"],
    "template": "linear",
    "title": "axes: per-depth accuracy, mean over seeds (soft reasoner, translate-then-prove)",
    "x_label": "proof depth",
    "y_label": "accuracy / coverage",
}
PLOTS[rules.axes_score_aggregate.output.plot_profile] = {
    "id": "axes-profile",
    "x": "level",
    "y": "accuracy",
    "template": "scatter",
    "title": "axes: grid degradation profiles, mean accuracy over seeds per axis level and system",
    "x_label": "axis level",
    "y_label": "accuracy",
}
