# shortcuts: reasoning shortcuts, counted before training and measured after (spec ch06).
# Two pipelines, one registry (nesybench/shortcuts/artifacts.py); they meet in the aggregates.
#   concept nets (binary concepts, nesybench/shortcuts/pipeline.py):
#     generate -> count, count rsbench; generate -> train concepts / exhibit -> score concepts
#     -> calibrate concepts; calibrate variant (one knob level)
#   digits (MNIST-Addition on real handwritten digits, nesybench/shortcuts/digits/):
#     generate digits -> train digits -> score digits -> calibrate digits
#   aggregates: score aggregate (reads count's N_opt), calibrate aggregate, calibrate sensitivity
# Every job after generate that works on a concept task reads its formula from generate's
# certificate (a declared input), never from params.yaml again.
# Everything trained runs per block of `seed_block` consecutive seeds (one batched job each);
# the aggregates read the blocks covering seeds 0..n_seeds-1.  The jobs:
#   generate            concept tasks (demo, counting table, model datasets), certified
#   generate  digits    MNIST-Addition tuples per digit support, image pools, samples
#   count               N_opt per task x support x extractor, certified
#   count     rsbench   rsbench's named tasks: N_opt per family, greedy plans to N_opt = 1
#   train     concepts  block: label-only nets on every model dataset, concept-supervised twins
#   train     exhibit   the head-to-head exhibit: first collapsing seed of a declared scan
#   train     digits    block: every digit support x mitigation model
#   score     concepts  block: outcomes (alpha, shortcut, collapse), head-to-head panels
#   score     digits    block: digit panels, maps, confusion matrices
#   score     aggregate distributions over seeds, claim rates, incidence, OOD, the exhibits
#   calibrate concepts  block: temperature on the head-to-head nets' concept heads
#   calibrate digits    block: the digit heads' calibrators (val -> test)
#   calibrate aggregate distributions, claim rates, the digit exhibit's reliability
#   calibrate variant   knob level x block: the concept-net blocks re-run with one knob changed
#   calibrate sensitivity  what each claim depends on: its rate at every measured knob level


# ----------------------------------------------------------------------------------------------
# the concept-net pipeline
# ----------------------------------------------------------------------------------------------


rule shortcuts_generate:
    """shortcuts: seeded concept tasks with gold concepts (train/test/ood), every promise asserted."""
    input:
        code=code("generate", "shortcuts"),
    output:
        **stage_outputs("shortcuts", "generate"),
    params:
        section=job_section("shortcuts", "generate"),
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
        section=job_section("shortcuts", "count"),
    shell:
        "python stages/count.py shortcuts"


rule shortcuts_count_rsbench:
    """shortcuts: rsbench's named tasks, N_opt per family at their supports and greedy plans."""
    input:
        code=code("count", "shortcuts"),
    output:
        **stage_outputs("shortcuts", "count", "rsbench"),
    params:
        section=job_section("shortcuts", "count", "rsbench"),
    shell:
        "python stages/count.py shortcuts rsbench"


rule shortcuts_train_concepts:
    """shortcuts: one block of seeds: label-only nets on every model dataset, the twins."""
    input:
        code=code("train", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        # the tasks' certified formulas (shortcuts.tasks.generated_tasks)
        certificate=rules.shortcuts_generate.output.certificate,
    output:
        **stage_outputs("shortcuts", "train", "concepts"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "train", "concepts"),
    shell:
        "python stages/train.py shortcuts concepts --arg block={wildcards.block}"


rule shortcuts_train_exhibit:
    """shortcuts: the head-to-head exhibit, the first collapsing seed of the scan and its twin."""
    input:
        code=code("train", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        certificate=rules.shortcuts_generate.output.certificate,
    output:
        **stage_outputs("shortcuts", "train", "exhibit"),
    params:
        section=job_section("shortcuts", "train", "exhibit"),
    shell:
        "python stages/train.py shortcuts exhibit"


rule shortcuts_score_concepts:
    """shortcuts: one block: run outcomes and the head-to-head nets' concept panels."""
    input:
        code=code("score", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        certificate=rules.shortcuts_generate.output.certificate,
        weights=rules.shortcuts_train_concepts.output.concept_weights,
    output:
        **stage_outputs("shortcuts", "score", "concepts"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "score", "concepts"),
    shell:
        "python stages/score.py shortcuts concepts --arg block={wildcards.block}"


rule shortcuts_calibrate_concepts:
    """shortcuts: one block: temperature scaling of the head-to-head nets' concept heads."""
    input:
        code=code("calibrate", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        certificate=rules.shortcuts_generate.output.certificate,
        weights=rules.shortcuts_train_concepts.output.concept_weights,
    output:
        **stage_outputs("shortcuts", "calibrate", "concepts"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "calibrate", "concepts"),
    shell:
        "python stages/calibrate.py shortcuts concepts --arg block={wildcards.block}"


rule shortcuts_calibrate_variant:
    """shortcuts: one knob level, one block: the head-to-head and OOD nets retrained with it."""
    input:
        code=code("calibrate", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        certificate=rules.shortcuts_generate.output.certificate,
    output:
        **stage_outputs("shortcuts", "calibrate", "variant"),
    wildcard_constraints:
        variant=VARIANT_PATTERN,
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "calibrate", "variant"),
    shell:
        "python stages/calibrate.py shortcuts variant --arg variant={wildcards.variant} "
        "--arg block={wildcards.block}"


# ----------------------------------------------------------------------------------------------
# the digit pipeline (nesybench.shortcuts.digits)
# ----------------------------------------------------------------------------------------------


rule shortcuts_generate_digits:
    """shortcuts: MNIST-Addition tuples on real handwritten digits, gold digits on every split."""
    input:
        code=code("generate", "shortcuts"),
        # a user's .npz of digit images (shortcuts.digits.images), when one is set
        images=config["shortcuts"]["digits"].get("images") or [],
    output:
        **stage_outputs("shortcuts", "generate", "digits"),
    params:
        section=job_section("shortcuts", "generate", "digits"),
    shell:
        "python stages/generate.py shortcuts digits"


rule shortcuts_train_digits:
    """shortcuts: one block of seeds: every digit support x mitigation model."""
    input:
        code=code("train", "shortcuts"),
        tuples=rules.shortcuts_generate_digits.output.digit_tuples,
        pools=rules.shortcuts_generate_digits.output.digit_pools,
        supports=rules.shortcuts_generate_digits.output.digit_supports,
    output:
        **stage_outputs("shortcuts", "train", "digits"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "train", "digits"),
    shell:
        "python stages/train.py shortcuts digits --arg block={wildcards.block}"


rule shortcuts_score_digits:
    """shortcuts: one block: every digit model's panel, map, shortcut flag and confusion."""
    input:
        code=code("score", "shortcuts"),
        tuples=rules.shortcuts_generate_digits.output.digit_tuples,
        pools=rules.shortcuts_generate_digits.output.digit_pools,
        supports=rules.shortcuts_generate_digits.output.digit_supports,
        weights=rules.shortcuts_train_digits.output.digit_weights,
        labels=rules.shortcuts_train_digits.output.digit_label_predictions,
    output:
        **stage_outputs("shortcuts", "score", "digits"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "score", "digits"),
    shell:
        "python stages/score.py shortcuts digits --arg block={wildcards.block}"


rule shortcuts_calibrate_digits:
    """shortcuts: one block: the digit heads' calibrators, fitted on val, audited on test."""
    input:
        code=code("calibrate", "shortcuts"),
        tuples=rules.shortcuts_generate_digits.output.digit_tuples,
        pools=rules.shortcuts_generate_digits.output.digit_pools,
        supports=rules.shortcuts_generate_digits.output.digit_supports,
        weights=rules.shortcuts_train_digits.output.digit_weights,
        labels=rules.shortcuts_train_digits.output.digit_label_predictions,
    output:
        **stage_outputs("shortcuts", "calibrate", "digits"),
    wildcard_constraints:
        block=SEED_PATTERN,
    params:
        section=job_section("shortcuts", "calibrate", "digits"),
    shell:
        "python stages/calibrate.py shortcuts digits --arg block={wildcards.block}"


# ----------------------------------------------------------------------------------------------
# the aggregates: both pipelines over seeds
# ----------------------------------------------------------------------------------------------


rule shortcuts_score_aggregate:
    """shortcuts: distributions over seeds, claim rates, incidence, OOD and the two exhibits."""
    input:
        code=code("score", "shortcuts"),
        points=rules.shortcuts_generate.output.model_points,
        certificate=rules.shortcuts_generate.output.certificate,
        # N_opt of the incidence cells, as the count stage certified it (never recounted)
        n_opt=rules.shortcuts_count.output.n_opt,
        supports=rules.shortcuts_generate_digits.output.digit_supports,
        scan=rules.shortcuts_train_exhibit.output.exhibit_scan,
        concepts=rules.shortcuts_train_exhibit.output.exhibit_concepts,
        labels=rules.shortcuts_train_exhibit.output.exhibit_labels,
        runs=instances("shortcuts", "score", "concepts", "concept_runs"),
        panels=instances("shortcuts", "score", "concepts", "concept_panels"),
        digit_runs=instances("shortcuts", "score", "digits", "digit_runs"),
        confusion=instances("shortcuts", "score", "digits", "digit_confusion"),
    output:
        **stage_outputs("shortcuts", "score", "aggregate"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/score.py shortcuts aggregate"


rule shortcuts_calibrate_aggregate:
    """shortcuts: calibration over seeds, claim rates, the digit exhibit's reliability diagrams."""
    input:
        code=code("calibrate", "shortcuts"),
        exhibit=rules.shortcuts_score_aggregate.output.digit_exhibit,
        concepts=instances("shortcuts", "calibrate", "concepts", "concept_calibration"),
        digits=instances("shortcuts", "calibrate", "digits", "digit_calibration"),
        reliability=instances("shortcuts", "calibrate", "digits", "digit_reliability"),
    output:
        **stage_outputs("shortcuts", "calibrate", "aggregate"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/calibrate.py shortcuts aggregate"


rule shortcuts_calibrate_sensitivity:
    """shortcuts: every claim at every measured knob level; the kind of optimum of every run."""
    input:
        code=code("calibrate", "shortcuts"),
        certificate=rules.shortcuts_generate.output.certificate,
        h2h=rules.shortcuts_score_aggregate.output.h2h_summaries,
        calibration=rules.shortcuts_calibrate_aggregate.output.calibration_summaries,
        runs=instances("shortcuts", "score", "concepts", "concept_runs"),
        panels=instances("shortcuts", "score", "concepts", "concept_panels"),
        concepts=instances("shortcuts", "calibrate", "concepts", "concept_calibration"),
        variant_runs=instances("shortcuts", "calibrate", "variant", "variant_runs"),
        variant_panels=instances("shortcuts", "calibrate", "variant", "variant_panels"),
        variant_calibration=instances("shortcuts", "calibrate", "variant", "variant_calibration"),
    output:
        **stage_outputs("shortcuts", "calibrate", "sensitivity"),
    params:
        section=section("shortcuts"),
    shell:
        "python stages/calibrate.py shortcuts sensitivity"


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
PLOTS[rules.shortcuts_score_aggregate.output.plot_incidence] = {
    "id": "shortcuts-incidence",
    "x": "log2_n_opt",
    "y": "rate",
    "template": "scatter",
    "title": "shortcuts: fraction of seeds whose label-only net lands on a shortcut vs log2 N_opt",
    "x_label": "log2 N_opt of the cell",
    "y_label": "shortcut rate",
}
PLOTS[rules.shortcuts_score_aggregate.output.plot_digit_incidence] = {
    "id": "shortcuts-digit_incidence",
    "x": "n_support",
    "y": "rate",
    "template": "scatter",
    "title": "shortcuts: digit shortcut incidence per support and mitigation",
    "x_label": "observed digit tuples",
    "y_label": "shortcut incidence over seeds",
}
