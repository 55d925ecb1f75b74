# calibration: does the link predictor's 0.97 mean 97 in 100? (spec ch07)
# One job per seed for everything seeded; the aggregate summarises the sweep.
#   generate            academic KG world (shared by every seed)
#   generate  seed      labelled triples (positives + corruptions), cal/eval halves
#   count               class mix of each half, every seed
#   train     seed      ComplEx by SGD on softplus(-y s); raw scores of the labelled set
#   score     seed      BEFORE: reliability table, ECE/MCE/Brier/NLL/AUC on the eval half
#   calibrate seed      temperature (golden-section), Platt, isotonic; AFTER, ledger, invariances
#   calibrate aggregate distributions over seeds, claim rates, the exhibit seed's bootstrap
#   calibrate variant   knob level x seed: the seed's chain re-run with one knob changed
#   calibrate sensitivity  every claim at every knob level; claims by held-out facts in eval


rule calibration_generate:
    """calibration: the academic KG world every seed shares."""
    input:
        code=code("generate", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
    output:
        **stage_outputs("calibration", "generate"),
    params:
        section=job_section("calibration", "generate"),
    shell:
        "python stages/generate.py calibration"


rule calibration_generate_seed:
    """calibration: one seed's labelled triples and stratified cal/eval split."""
    input:
        code=code("generate", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
    output:
        **stage_outputs("calibration", "generate", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("calibration", "generate", "seed"),
    shell:
        "python stages/generate.py calibration seed --arg seed={wildcards.seed}"


rule calibration_count:
    """calibration: class mix per half on every seed (asserts the stratified split on each)."""
    input:
        code=code("count", "calibration"),
        labelled=instances("calibration", "generate", "seed", "labelled"),
    output:
        **stage_outputs("calibration", "count"),
    params:
        section=job_section("calibration", "count"),
    shell:
        "python stages/count.py calibration"


rule calibration_train_seed:
    """calibration: one seed's ComplEx link predictor; raw scores of its labelled triples."""
    input:
        code=code("train", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
        labelled=rules.calibration_generate_seed.output.labelled,
    output:
        **stage_outputs("calibration", "train", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("calibration", "train", "seed"),
    shell:
        "python stages/train.py calibration seed --arg seed={wildcards.seed}"


rule calibration_score_seed:
    """calibration: one seed's BEFORE reliability table and metrics on the evaluation half."""
    input:
        code=code("score", "calibration"),
        labelled=rules.calibration_generate_seed.output.labelled,
        scores=rules.calibration_train_seed.output.scores,
    output:
        **stage_outputs("calibration", "score", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("calibration", "score", "seed"),
    shell:
        "python stages/score.py calibration seed --arg seed={wildcards.seed}"


rule calibration_calibrate_seed:
    """calibration: one seed's temperature / Platt / isotonic repair; AFTER, ledger, invariances."""
    input:
        code=code("calibrate", "calibration"),
        labelled=rules.calibration_generate_seed.output.labelled,
        scores=rules.calibration_train_seed.output.scores,
    output:
        **stage_outputs("calibration", "calibrate", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("calibration", "calibrate", "seed"),
    shell:
        "python stages/calibrate.py calibration seed --arg seed={wildcards.seed}"


rule calibration_calibrate_aggregate:
    """calibration: distributions and claim rates over seeds; the exhibit seed's bootstrap."""
    input:
        code=code("calibrate", "calibration"),
        summaries=instances("calibration", "calibrate", "seed", "summary"),
        after=instances("calibration", "calibrate", "seed", "after_reliability"),
        before=instances("calibration", "score", "seed", "before_reliability"),
        labelled=instances("calibration", "generate", "seed", "labelled"),
        scores=instances("calibration", "train", "seed", "scores"),
    output:
        **stage_outputs("calibration", "calibrate", "aggregate"),
    params:
        section=job_section("calibration", "calibrate", "aggregate"),
    shell:
        "python stages/calibrate.py calibration aggregate"


rule calibration_calibrate_variant:
    """calibration: one knob level, one seed: the seed's chain re-run with that level."""
    input:
        code=code("calibrate", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
    output:
        **stage_outputs("calibration", "calibrate", "variant"),
    wildcard_constraints:
        variant=VARIANT_PATTERN,
        seed=SEED_PATTERN,
    params:
        section=job_section("calibration", "calibrate", "variant"),
    shell:
        "python stages/calibrate.py calibration variant --arg variant={wildcards.variant} "
        "--arg seed={wildcards.seed}"


rule calibration_calibrate_sensitivity:
    """calibration: every claim at every measured knob level; claims by held-out facts in eval."""
    input:
        code=code("calibrate", "calibration"),
        summaries=instances("calibration", "calibrate", "seed", "summary"),
        variants=instances("calibration", "calibrate", "variant", "variant_summary"),
    output:
        **stage_outputs("calibration", "calibrate", "sensitivity"),
    params:
        section=section("calibration"),
    shell:
        "python stages/calibrate.py calibration sensitivity"


REPORT_INPUTS["calibration"] = all_artifacts("calibration")

# dvc plots spec of the reliability CSV (read by nesybench.dvc_export): the exhibit seed,
# one row per non-empty bin and method.
PLOTS[rules.calibration_calibrate_aggregate.output.plot_reliability] = {
    "id": "calibration-reliability",
    "x": "conf",
    "y": "acc",
    "template": "scatter",
    "title": "calibration: reliability of the exhibit seed (eval half), before and after",
    "x_label": "mean confidence in bin",
    "y_label": "observed accuracy",
}
