# nli: PrOntoQA-lite chains with a step checker, FOLIO-lite three-way labels,
# the metric trap (spec ch21). No train stage: every system is symbolic.
#   nli_generate -> nli_count (label mix, majority baseline, depth mix)
#                -> nli_score (checker, per-depth, metric trap, rfwr, FOLIO-lite per label)


rule nli_generate:
    """nli: seeded PrOntoQA-lite (hops x examples, 1 in 4 corrupted) and FOLIO-lite corpora."""
    input:
        code=code("generate", "nli"),
    output:
        **stage_outputs("nli", "generate"),
    params:
        section=section("nli"),
    shell:
        "python stages/generate.py nli"


rule nli_count:
    """nli: label mix, majority baseline / best input-blind guess, depth mix."""
    input:
        code=code("count", "nli"),
        prontoqa=rules.nli_generate.output.prontoqa,
        folio=rules.nli_generate.output.folio,
    output:
        **stage_outputs("nli", "count"),
    params:
        section=section("nli"),
    shell:
        "python stages/count.py nli"


rule nli_score:
    """nli: both systems through the step checker; per-depth, metric-trap, rfwr and FOLIO-lite tables."""
    input:
        code=code("score", "nli"),
        prontoqa=rules.nli_generate.output.prontoqa,
        folio=rules.nli_generate.output.folio,
    output:
        **stage_outputs("nli", "score"),
    params:
        section=section("nli"),
    shell:
        "python stages/score.py nli"


REPORT_INPUTS["nli"] = all_artifacts("nli")

PLOTS[rules.nli_score.output.plot_per_depth] = {
    "id": "nli-per_depth",
    "x": "hops",
    "y": [
        "pipeline_label_acc",
        "pipeline_proof_acc",
        "greedy_label_acc",
        "greedy_proof_acc",
    ],
    "template": "linear",
    "title": "nli: label vs proof accuracy per hop count (PrOntoQA-lite)",
    "x_label": "hops",
    "y_label": "accuracy",
}
