# nli: PrOntoQA-lite chains with a step checker, FOLIO-lite three-way labels,
# the metric trap (spec ch21). No train stage: every system is symbolic.
#   nli_generate -> nli_count (label mix, majority baseline, depth mix)
#                -> nli_score (checker, per-depth, metric trap, rfwr, FOLIO-lite per label)


rule nli_generate:
    """nli: seeded PrOntoQA-lite (hops x examples, 1 in 4 corrupted) and FOLIO-lite corpora."""
    input:
        code=code("generate", "nli", "reasoning"),
    output:
        **stage_out("generate", "nli", "prontoqa", "folio"),
        metrics="data/generate/nli/metrics.json",
    params:
        section=section("nli"),
    shell:
        "python stages/generate.py nli"


rule nli_count:
    """nli: label mix, majority baseline / best input-blind guess, depth mix."""
    input:
        code=code("count", "nli", "reasoning"),
        prontoqa=rules.nli_generate.output.prontoqa,
        folio=rules.nli_generate.output.folio,
    output:
        **stage_out("count", "nli", "label_mix", "depth_mix"),
        metrics="data/count/nli/metrics.json",
    params:
        section=section("nli"),
    shell:
        "python stages/count.py nli"


rule nli_score:
    """nli: both systems through the step checker; per-depth, metric-trap, rfwr and FOLIO-lite tables."""
    input:
        code=code("score", "nli", "reasoning"),
        prontoqa=rules.nli_generate.output.prontoqa,
        folio=rules.nli_generate.output.folio,
    output:
        **stage_out(
            "score",
            "nli",
            "traces",
            "per_depth",
            "metric_trap",
            "worked_example",
            "worked_example_text",
            "folio_predictions",
            "folio_per_label",
        ),
        metrics="data/score/nli/metrics.json",
        per_depth_plot=report(
            "reports/plots/nli-per_depth.csv",
            caption="../report/nli-per_depth.rst",
            category="nli",
        ),
    params:
        section=section("nli"),
    shell:
        "python stages/score.py nli"


REPORT_INPUTS["nli"] = [
    *rules.nli_count.output,
    *rules.nli_score.output,
    rules.nli_generate.output.metrics,
]

PLOTS[rules.nli_score.output.per_depth_plot] = {
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
