# shortcuts: rules are added here (see common.smk for conventions).


rule shortcuts_generate:
    """shortcuts: seeded concept tasks with gold concepts (train/test/ood), every promise asserted."""
    input:
        code=code("generate", "shortcuts", "logic"),
    output:
        **stage_out("generate", "shortcuts", "points", "certificate", "model_points"),
        metrics="data/generate/shortcuts/metrics.json",
    params:
        section=section("shortcuts"),
    shell:
        "python stages/generate.py shortcuts"


rule shortcuts_count:
    """shortcuts: N_opt per task x support x extractor, certified by enumeration, closed form and #SAT."""
    input:
        code=code("count", "shortcuts", "logic", "counting"),
        points=rules.shortcuts_generate.output.points,
        certificate=rules.shortcuts_generate.output.certificate,
    output:
        **stage_out("count", "shortcuts", "n_opt", "dimacs"),
        metrics="data/count/shortcuts/metrics.json",
        plot=report(
            "reports/plots/shortcuts-n_opt.csv",
            caption="../report/shortcuts-n_opt.rst",
            category="shortcuts",
        ),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/count.py shortcuts"


REPORT_INPUTS.setdefault("shortcuts", []).extend(
    [
        rules.shortcuts_generate.output.certificate,
        rules.shortcuts_generate.output.metrics,
        rules.shortcuts_count.output.n_opt,
        rules.shortcuts_count.output.metrics,
    ]
)


# ---- concept models, the panel, incidence, concept-head calibration (issue 3) ----
#   train              label-only seed sweep -> first collapsing shortcut + its concept-supervised
#                      twin (same init); label-only OOD batch at a biased support
#   train incidence    one (task, support) cell of the shortcut-incidence sweep per job
#   score              concept panel, alpha, occurrence, OOD vs counted survivors, incidence table
#   calibrate          temperature scaling of the concept heads (AccC must not move)

SHORTCUTS_INCIDENCE = config["shortcuts"]["incidence"]
# Support wildcards are spelled as Python's repr of the float ("1.0", "0.75"); the stage
# checks the spelling against params.yaml, so a cell can only be the one params.yaml names.
SHORTCUTS_INCIDENCE_CELLS = expand(
    "data/train/shortcuts/incidence-{task}-{support}.parquet",
    task=SHORTCUTS_INCIDENCE["tasks"],
    support=[repr(float(s)) for s in SHORTCUTS_INCIDENCE["support_fracs"]],
)


rule shortcuts_train:
    """shortcuts: label-only sweep, the first collapsing seed and its concept-supervised twin; OOD batch."""
    input:
        code=code("train", "shortcuts", "logic", "counting"),
        points=rules.shortcuts_generate.output.model_points,
    output:
        **stage_out(
            "train",
            "shortcuts",
            "concepts",
            "labels",
            "curves",
            "sweep",
            "ood_runs",
            "tasks",
        ),
        metrics="data/train/shortcuts/metrics.json",
    params:
        section=section("shortcuts"),
    shell:
        "python stages/train.py shortcuts"


rule shortcuts_incidence:
    """shortcuts: one cell of the incidence sweep (label-only seeds on one task and support)."""
    input:
        code=code("train", "shortcuts", "logic", "counting", "metrics"),
        points=rules.shortcuts_generate.output.model_points,
    output:
        runs="data/train/shortcuts/incidence-{task}-{support}.parquet",
    wildcard_constraints:
        task="[a-z][a-z0-9_]*",
        support="[0-9]+[.][0-9]+",
    params:
        section=section("shortcuts"),
    shell:
        "python stages/train.py shortcuts incidence --arg task={wildcards.task} --arg support={wildcards.support}"


rule shortcuts_score:
    """shortcuts: the concept panel (head-to-head), alpha, occurrence, OOD and incidence tables."""
    input:
        code=code("score", "shortcuts", "logic", "counting", "metrics"),
        concepts=rules.shortcuts_train.output.concepts,
        labels=rules.shortcuts_train.output.labels,
        tasks=rules.shortcuts_train.output.tasks,
        ood_runs=rules.shortcuts_train.output.ood_runs,
        cells=SHORTCUTS_INCIDENCE_CELLS,
    output:
        **stage_out("score", "shortcuts", "panel", "alpha", "occurrence", "ood", "incidence"),
        metrics="data/score/shortcuts/metrics.json",
        plot=report(
            "reports/plots/shortcuts-incidence.csv",
            caption="../report/shortcuts-incidence.rst",
            category="shortcuts",
        ),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/score.py shortcuts"


rule shortcuts_calibrate:
    """shortcuts: concept-head temperature scaling (fit on train, scored on test); AccC unchanged."""
    input:
        code=code("calibrate", "shortcuts", "logic", "counting", "metrics", "calibration"),
        concepts=rules.shortcuts_train.output.concepts,
    output:
        **stage_out("calibrate", "shortcuts", "concept_calibration"),
        metrics="data/calibrate/shortcuts/metrics.json",
    params:
        section=section("shortcuts"),
    shell:
        "python stages/calibrate.py shortcuts"


REPORT_INPUTS.setdefault("shortcuts", []).extend(
    [
        rules.shortcuts_train.output.tasks,
        rules.shortcuts_train.output.curves,
        rules.shortcuts_train.output.metrics,
        *rules.shortcuts_score.output,
        *rules.shortcuts_calibrate.output,
    ]
)

PLOTS[rules.shortcuts_count.output.plot] = {
    "id": "shortcuts-n_opt",
    "x": "support_frac",
    "y": ["xor2", "xor3", "cnf3"],
    "template": "linear",
    "title": "shortcuts: log2 N_opt vs support fraction (joint extractor)",
    "x_label": "support fraction",
    "y_label": "log2 N_opt",
}
PLOTS[rules.shortcuts_score.output.plot] = {
    "id": "shortcuts-incidence",
    "x": "log2_n_opt",
    "y": "rate",
    "template": "scatter",
    "title": "shortcuts: fraction of label-only runs landing on a shortcut vs log2 N_opt",
    "x_label": "log2 N_opt of the cell",
    "y_label": "shortcut rate",
}
