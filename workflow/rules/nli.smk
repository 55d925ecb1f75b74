# nli: PrOntoQA-lite chains with a step checker, FOLIO-lite three-way labels, the metric trap,
# and the vendored real benchmarks (spec ch21). No train stage: every system is symbolic.
# The corpora are sampled: one job per seed for everything seeded, an aggregate over seeds.
#   generate  seed        PrOntoQA-lite and FOLIO-lite corpora of one seed
#   count                 label mix (majority = best blind guess) and depth mix, every seed
#   score     seed        checker, per-depth, metric trap, FOLIO-lite tables; structural claims
#   score     aggregate   distributions over seeds, claim rates, the exhibit seed, per-depth plot
#   score     benchmarks  vendored files (not seeded): labeler agreement, FOLIO audit, score-nli
#   score     programs    LLM-written logic programs in two semantics; checker vs PrOntoQA's
#   score     variant     knob level x seed: the seed's corpora drawn and scored with one knob changed
#   score     sensitivity every claim at every measured knob level
from nesybench.nli.vendored import input_files as nli_benchmark_files
from nesybench.nli.vendored import program_inputs as nli_program_files


rule nli_generate_seed:
    """nli: one seed's PrOntoQA-lite (hops x examples, some corrupted) and FOLIO-lite corpora."""
    input:
        code=code("generate", "nli"),
    output:
        **stage_outputs("nli", "generate", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("nli", "generate", "seed"),
    shell:
        "python stages/generate.py nli seed --arg seed={wildcards.seed}"


rule nli_count:
    """nli: label mix, majority baseline / best input-blind guess, depth mix of every seed."""
    input:
        code=code("count", "nli"),
        prontoqa=instances("nli", "generate", "seed", "prontoqa"),
        folio=instances("nli", "generate", "seed", "folio"),
    output:
        **stage_outputs("nli", "count"),
    params:
        section=section("nli"),
    shell:
        "python stages/count.py nli"


rule nli_score_seed:
    """nli: one seed's systems through the step checker; per-depth, metric-trap, FOLIO-lite tables."""
    input:
        code=code("score", "nli"),
        prontoqa=rules.nli_generate_seed.output.prontoqa,
        folio=rules.nli_generate_seed.output.folio,
    output:
        **stage_outputs("nli", "score", "seed"),
    wildcard_constraints:
        seed=SEED_PATTERN,
    params:
        section=job_section("nli", "score", "seed"),
    shell:
        "python stages/score.py nli seed --arg seed={wildcards.seed}"


rule nli_score_aggregate:
    """nli: distributions and claim rates over seeds, the exhibit seed, the per-depth plot."""
    input:
        code=code("score", "nli"),
        summaries=instances("nli", "score", "seed", "summary"),
        per_depth=instances("nli", "score", "seed", "per_depth"),
        metric_trap=instances("nli", "score", "seed", "metric_trap"),
        folio_per_label=instances("nli", "score", "seed", "folio_per_label"),
        label_mix=rules.nli_count.output.label_mix,
    output:
        **stage_outputs("nli", "score", "aggregate"),
    params:
        section=section("nli"),
    shell:
        "python stages/score.py nli aggregate"


rule nli_score_benchmarks:
    """nli: the vendored real benchmarks: labeler agreement, FOLIO label audit, score-nli."""
    input:
        code=code("score", "nli"),
        benchmarks=nli_benchmark_files(),
    output:
        **stage_outputs("nli", "score", "benchmarks"),
    params:
        section=job_section("nli", "score", "benchmarks"),
    shell:
        "python stages/score.py nli benchmarks"


rule nli_score_programs:
    """nli: Logic-LM's programs in two semantics with the translation audit; checker agreement."""
    input:
        code=code("score", "nli"),
        programs=nli_program_files(),
    output:
        **stage_outputs("nli", "score", "programs"),
    params:
        section=job_section("nli", "score", "programs"),
    shell:
        "python stages/score.py nli programs"


rule nli_score_variant:
    """nli: one knob level, one seed: the seed's corpora drawn and scored with that level."""
    input:
        code=code("score", "nli"),
    output:
        **stage_outputs("nli", "score", "variant"),
    wildcard_constraints:
        variant=VARIANT_PATTERN,
        seed=SEED_PATTERN,
    params:
        section=job_section("nli", "score", "variant"),
    shell:
        "python stages/score.py nli variant --arg variant={wildcards.variant} "
        "--arg seed={wildcards.seed}"


rule nli_score_sensitivity:
    """nli: every claim at every measured knob level."""
    input:
        code=code("score", "nli"),
        summaries=instances("nli", "score", "seed", "summary"),
        variants=instances("nli", "score", "variant", "variant_summary"),
    output:
        **stage_outputs("nli", "score", "sensitivity"),
    params:
        section=section("nli"),
    shell:
        "python stages/score.py nli sensitivity"


REPORT_INPUTS["nli"] = all_artifacts("nli")

# dvc plots spec of the per-depth CSV (read by nesybench.dvc_export): means over seeds.
PLOTS[rules.nli_score_aggregate.output.plot_per_depth] = {
    "id": "nli-per_depth",
    "x": "hops",
    "y": [
        "pipeline_label_acc",
        "pipeline_proof_acc",
        "greedy_label_acc",
        "greedy_proof_acc",
    ],
    "template": "linear",
    "title": "nli: label vs proof accuracy per hop count (PrOntoQA-lite, mean over seeds)",
    "x_label": "hops",
    "y_label": "accuracy",
}
