# shortcuts: rules are added here (see common.smk for conventions).


rule shortcuts_generate:
    """shortcuts: seeded concept tasks with gold concepts (train/test/ood), every promise asserted."""
    input:
        code=code("generate", "shortcuts"),
    output:
        **stage_outputs("shortcuts", "generate"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/generate.py shortcuts"


rule shortcuts_count:
    """shortcuts: N_opt per task x support x extractor, certified by enumeration, closed form and #SAT."""
    input:
        code=code("count", "shortcuts"),
        points=rules.shortcuts_generate.output.points,
        certificate=rules.shortcuts_generate.output.certificate,
    output:
        **stage_outputs("shortcuts", "count"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/count.py shortcuts"


# ---- concept models, the panel, incidence, concept-head calibration ----
#   train              label-only seed sweep -> first collapsing shortcut + its concept-supervised
#                      twin (same init); label-only OOD batch at a biased support
#   train incidence    one (task, support) cell of the shortcut-incidence sweep per job
#   score              concept panel, alpha, occurrence, OOD vs counted survivors, incidence table
#   calibrate          temperature scaling of the concept heads (AccC must not move)


rule shortcuts_train:
    """shortcuts: label-only sweep, the first collapsing seed and its concept-supervised twin; OOD batch."""
    input:
        code=code("train", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
    output:
        **stage_outputs("shortcuts", "train"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/train.py shortcuts"


rule shortcuts_incidence:
    """shortcuts: one cell of the incidence sweep (label-only seeds on one task and support)."""
    input:
        code=code("train", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
    output:
        **stage_outputs("shortcuts", "train", "incidence"),
    wildcard_constraints:
        task=WILDCARD_PATTERN,
        support=WILDCARD_PATTERN,
    params:
        section=section("shortcuts"),
    shell:
        "python stages/train.py shortcuts incidence --arg task={wildcards.task} --arg support={wildcards.support}"


rule shortcuts_score:
    """shortcuts: the concept panel (head-to-head), alpha, occurrence, OOD and incidence tables."""
    input:
        code=code("score", "shortcuts"),
        concepts=rules.shortcuts_train.output.concepts,
        labels=rules.shortcuts_train.output.labels,
        tasks=rules.shortcuts_train.output.tasks,
        ood_runs=rules.shortcuts_train.output.ood_runs,
        cells=instances("shortcuts", "train", "incidence", "runs"),
    output:
        **stage_outputs("shortcuts", "score"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/score.py shortcuts"


rule shortcuts_calibrate:
    """shortcuts: concept-head temperature scaling (fit on train, scored on test); AccC unchanged."""
    input:
        code=code("calibrate", "shortcuts"),
        concepts=rules.shortcuts_train.output.concepts,
    output:
        **stage_outputs("shortcuts", "calibrate"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/calibrate.py shortcuts"


REPORT_INPUTS["shortcuts"] = all_artifacts("shortcuts")

PLOTS[rules.shortcuts_count.output.plot_n_opt] = {
    "id": "shortcuts-n_opt",
    "x": "support_frac",
    "y": ["xor2", "xor3", "cnf3"],
    "template": "linear",
    "title": "shortcuts: log2 N_opt vs support fraction (joint extractor)",
    "x_label": "support fraction",
    "y_label": "log2 N_opt",
}
PLOTS[rules.shortcuts_score.output.plot_incidence] = {
    "id": "shortcuts-incidence",
    "x": "log2_n_opt",
    "y": "rate",
    "template": "scatter",
    "title": "shortcuts: fraction of label-only runs landing on a shortcut vs log2 N_opt",
    "x_label": "log2 N_opt of the cell",
    "y_label": "shortcut rate",
}
