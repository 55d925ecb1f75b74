# report: one HTML page + Markdown + reports/metrics/<instrument>.json for every
# instrument whose rules registered inputs in REPORT_INPUTS.

LANDED = [name for name in ("shortcuts", "calibration", "nli", "axes") if name in REPORT_INPUTS]


rule report:
    """report: every landed instrument's tables and figures, and the merged metrics."""
    input:
        [path for name in LANDED for path in REPORT_INPUTS[name]],
        code=code("report", "report"),
    output:
        html=report("reports/report.html", caption="../report/report.rst", category="Report"),
        md="reports/report.md",
        figures=directory("reports/figures"),
        metrics=expand("reports/metrics/{instrument}.json", instrument=LANDED),
    params:
        section=section("shortcuts", "calibration", "nli", "axes", "report"),
    shell:
        "python stages/report.py report --arg instruments=" + ",".join(LANDED)
