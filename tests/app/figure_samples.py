"""Small real figures from the figure builders, shared by the export tests
(tests/app/test_figures_export.py and tests/e2e/test_export_e2e.py)."""

from flda_core.synthetic import make_domains
from explorer.experiments.perturbation import PAPER_TABLE1, perturbation_sweep
from explorer.experiments.synthetic import PAPER_FIGURE1, fit_classifiers, lattice_counts
from explorer.names import LOSSES
from explorer.figures.synthetic import boundary_lines, decision_boundary_figure, perturbation_error_figure


def boundary_and_curve_figures(n_samples=2_000, seed=0):
    """The paper's Figure 1 scatter with boundaries and the Table 1 error curve."""
    pair = make_domains(
        "bernoulli", PAPER_FIGURE1.params, n_samples, n_samples, PAPER_FIGURE1.theta, random_state=seed
    )
    result = fit_classifiers(pair)
    boundaries = decision_boundary_figure(
        lattice_counts(pair.X_target, pair.y_target),
        [(f"{loss} loss", boundary_lines(result.for_loss(loss))) for loss in LOSSES],
    )
    poisson = make_domains(
        "poisson", PAPER_TABLE1.params, n_samples, n_samples, PAPER_TABLE1.theta, random_state=seed
    )
    naive = [f for f in fit_classifiers(poisson).classifiers.values() if f.family != "flda"]
    curve = perturbation_error_figure(
        perturbation_sweep(poisson, [0.0, 0.1, 0.2, 0.3]), naive, paper=PAPER_TABLE1.errors
    )
    return boundaries, curve


def assert_passes_plotly_validation(fig):
    """Builders that skip plotly's per-property validation (``style.unvalidated_figure``)
    must produce what validation accepts and leaves unchanged: every property goes
    through plotly's validators here, and the JSON must be identical."""
    import json

    import plotly.graph_objects as go
    import plotly.io as pio

    validated = go.Figure(fig.to_dict())
    assert json.loads(pio.to_json(validated, validate=False)) == json.loads(pio.to_json(fig, validate=False))
