# calibration: does the link predictor's 0.97 mean 97 in 100? (spec ch07)
#   generate   academic KG -> labelled triples (positives + 6 corruptions each), cal/eval halves
#   count      base rate and class mix of each half
#   train      ComplEx (8 complex dims) by SGD on softplus(-y s); raw scores of the labelled set
#   score      BEFORE: reliability table, ECE/MCE/Brier/NLL/AUC of p = sigmoid(s) on the eval half
#   calibrate  temperature (golden-section), Platt, isotonic fitted on the cal half; AFTER tables,
#              ledger, invariances (asserted for temperature), bootstrap intervals


rule calibration_generate:
    """calibration: academic KG world, labelled triples, stratified cal/eval split."""
    input:
        code=code("generate", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
    output:
        **stage_outputs("calibration", "generate"),
    params:
        section=section("calibration"),
    shell:
        "python stages/generate.py calibration"


rule calibration_count:
    """calibration: base rate and class mix per half (asserts equal class ratio)."""
    input:
        code=code("count", "calibration"),
        labelled=rules.calibration_generate.output.labelled,
    output:
        **stage_outputs("calibration", "count"),
    params:
        section=section("calibration"),
    shell:
        "python stages/count.py calibration"


rule calibration_train:
    """calibration: ComplEx link predictor; raw scores of every labelled triple."""
    input:
        code=code("train", "calibration"),
        world="src/nesybench/calibration/data/academic_kg.yaml",
        labelled=rules.calibration_generate.output.labelled,
    output:
        **stage_outputs("calibration", "train"),
    params:
        section=section("calibration"),
    shell:
        "python stages/train.py calibration"


rule calibration_score:
    """calibration: BEFORE reliability table and metrics on the evaluation half; held-out exhibit."""
    input:
        code=code("score", "calibration"),
        labelled=rules.calibration_generate.output.labelled,
        scores=rules.calibration_train.output.scores,
    output:
        **stage_outputs("calibration", "score"),
    params:
        section=section("calibration"),
    shell:
        "python stages/score.py calibration"


rule calibration_calibrate:
    """calibration: temperature / Platt / isotonic repair; AFTER tables, ledger, invariances, bootstrap."""
    input:
        code=code("calibrate", "calibration"),
        labelled=rules.calibration_generate.output.labelled,
        scores=rules.calibration_train.output.scores,
    output:
        **stage_outputs("calibration", "calibrate"),
    params:
        section=section("calibration"),
    shell:
        "python stages/calibrate.py calibration"


REPORT_INPUTS["calibration"] = all_artifacts("calibration")

# dvc plots spec of the reliability CSV (read by nesybench.dvc_export); one row per non-empty bin and method.
PLOTS[rules.calibration_calibrate.output.plot_reliability] = {
    "id": "calibration-reliability",
    "x": "conf",
    "y": "acc",
    "template": "scatter",
    "title": "calibration: reliability (eval half), before and after each method",
    "x_label": "mean confidence in bin",
    "y_label": "observed accuracy",
}
