"""The jobs of the shortcuts instrument and the artifacts each writes (see nesybench.artifacts)."""

from ..artifacts import Job, Registry, product_instances


def _incidence_cells(section):
    inc = section["incidence"]
    return product_instances(
        task=lambda s: inc["tasks"], support=lambda s: [float(f) for f in inc["support_fracs"]]
    )(section)


ARTIFACTS = Registry(
    "shortcuts",
    [
        Job("generate", tables=("points", "certificate", "model_points")),
        Job("count", tables=("n_opt", "dimacs"), plots=("n_opt",)),
        Job("train", tables=("concepts", "labels", "curves", "sweep", "ood_runs", "tasks")),
        Job(
            "train",
            "incidence",
            tables=("runs",),
            metrics=False,
            wildcards=("task", "support"),
            instances=_incidence_cells,
            doc="one (task, support) cell of the shortcut-incidence sweep",
        ),
        Job(
            "score",
            tables=("panel", "alpha", "occurrence", "ood", "incidence"),
            plots=("incidence",),
        ),
        Job("calibrate", tables=("concept_calibration",)),
    ],
)
