"""The equations panel: FLDA's formulas as LaTeX, typeset ahead of time to SVG
(:mod:`explorer.ui.equations`, MathJax's glyphs; KaTeX-compatible so ``st.latex`` could
draw them too).

Each :class:`Equation` carries the paper's number as a reader sees it
(``docs/paper_numbering.md``) and an anchor captions link to (:func:`equation_link`).
The numeric counterpart of the formula a caption quotes (θ/(1 − θ)) is re-exported here, so
that the text on screen and the numbers come from one place.

Two formulas are not printed in the paper as shown here:

* **The dropout variance as a per-feature ridge** is derived from Equation (10)
  with the moments of section 3.3.1, ``E[z | x] = x`` and
  ``V[z | x] = diag(θ/(1−θ)) ∘ x xᵀ``: the variance term is
  ``Σ_d w_d² θ_d/(1−θ_d) Σ_i x_id²``, a ridge penalty with a strength per feature.
* **FLDA-L's Taylor term** (Equation (13)) is written for the standard logistic
  model ``p = σ(wᵀx + b)`` that this project fits: ``½ p(1−p) wᵀ V w``.  In the
  paper's ``{−1, +1}`` form, ``A(a) = log(eᵃ + e⁻ᵃ)`` has
  ``A''(a) = 4 σ(2a) σ(−2a)``, so the printed ``σ(−2a) σ(2a) wᵀ V w`` misses a
  factor 2 (see :mod:`flda_core.objectives`).

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research 17(171), 1-32.
"""

from __future__ import annotations

from dataclasses import dataclass

# One definition of theta / (1 - theta), the library's; re-exported for the captions.
from flda_core.transfer import dropout_variance_factor as dropout_variance_factor


@dataclass(frozen=True)
class Equation:
    """One entry of the equations panel.

    Attributes
    ----------
    key : str
        Short identifier (``"closed_form"``).
    title : str
        Heading shown above the formula.
    latex : str
        KaTeX-compatible LaTeX for ``st.latex`` (no ``$`` delimiters).
    explanation : str
        One plain sentence saying what the formula means.
    reference : str
        Where it is in the paper, by the numbers a reader sees ("Equation (11)").
    anchor : str
        HTML id of the entry, for links from captions (``#eq-11-closed-form``).
    """

    key: str
    title: str
    latex: str
    explanation: str
    reference: str
    anchor: str


EQUATIONS = (
    Equation(
        key="transfer_model",
        title="The dropout transfer model",
        latex=(
            r"p(z_d \mid x_d, \theta_d) = \begin{cases} \theta_d & \text{if } z_d = 0, \\ "
            r"1 - \theta_d & \text{if } z_d = \dfrac{x_d}{1 - \theta_d}. \end{cases}"
        ),
        explanation=(
            "A target value is the source value set to zero with probability θ "
            "(one per feature), and otherwise scaled up by 1/(1 − θ) so that its "
            "mean stays the source value."
        ),
        reference="Equation (8), section 3.3.1",
        anchor="eq-8-dropout-transfer-model",
    ),
    Equation(
        key="theta_hat",
        title="Estimating the dropout θ̂ from unlabelled data",
        latex=(
            r"\begin{aligned} \hat\theta_d &= \max\left\{0,\; 1 - "
            r"\frac{\hat\zeta_d}{\hat\eta_d}\right\}, \\ \hat\eta_d &= \frac{1}{|S|}"
            r"\sum_{x_i \in S} \mathbf{1}[x_{id} \neq 0], \quad \hat\zeta_d = "
            r"\frac{1}{|T|}\sum_{z_j \in T} \mathbf{1}[z_{jd} \neq 0] \end{aligned}"
        ),
        explanation=(
            "θ̂ of feature d is the fraction of its non-zero source occurrences that "
            "the target no longer shows: one minus the ratio of how often the "
            "feature is non-zero in the target and in the source."
        ),
        reference="section 3.3.1 (unnumbered, maximising Equation (6))",
        anchor="eq-theta-hat",
    ),
    Equation(
        key="moments",
        title="Mean and variance of the transfer model",
        latex=(
            r"\mathbb{E}[z \mid x] = x, \qquad \mathbb{V}[z \mid x] = "
            r"\operatorname{diag}\!\left(\frac{\theta}{1-\theta}\right) \circ x x^\top"
        ),
        explanation=(
            "Dropout is unbiased (the mean is the source sample) and adds variance "
            "θ/(1 − θ) · x² to each feature (its own θ), independently across features."
        ),
        reference="section 3.3.1 (unnumbered)",
        anchor="eq-dropout-moments",
    ),
    Equation(
        key="quadratic_loss",
        title="Expected quadratic loss under the transfer model",
        latex=(
            r"\begin{aligned} \hat R(w \mid S) &= \sum_{(x_i, y_i) \in S} "
            r"\mathbb{E}_{z \mid x_i}\!\left[(y_i - w^\top z)^2\right] \\ "
            r"&= y^\top y - 2\, w^\top \mathbb{E}[Z]\, y^\top + "
            r"w^\top\!\left(\mathbb{E}[Z]\,\mathbb{E}[Z]^\top + \mathbb{V}[Z]\right) w "
            r"\end{aligned}"
        ),
        explanation=(
            "Training on every possible target version of each source sample at "
            "once: the squared error on the mean plus a variance term that only "
            "depends on the weights."
        ),
        reference="Equation (10), section 3.4.1",
        anchor="eq-10-expected-quadratic-loss",
    ),
    Equation(
        key="closed_form",
        title="FLDA-Q in closed form",
        latex=(
            r"w = \left(\mathbb{E}[Z]\,\mathbb{E}[Z]^\top + \mathbb{V}[Z]\right)^{-1} "
            r"\mathbb{E}[Z]\, y^\top, \qquad \mathbb{V}[Z] = \sum_{x_i \in S} "
            r"\mathbb{V}[z \mid x_i]"
        ),
        explanation=(
            "Setting the gradient of the expected quadratic loss to zero gives "
            "least squares on the source data with the transfer model's variance "
            "added to XXᵀ."
        ),
        reference="Equation (11), section 3.4.1 (Algorithm 1)",
        anchor="eq-11-flda-q-closed-form",
    ),
    Equation(
        key="per_feature_ridge",
        title="The dropout variance is a ridge penalty per feature",
        latex=(
            r"w^\top \mathbb{V}[Z]\, w = \sum_{d=1}^{m} \lambda_d\, w_d^2, \qquad "
            r"\lambda_d = \frac{\theta_d}{1 - \theta_d} \sum_{x_i \in S} x_{id}^2"
        ),
        explanation=(
            "Ridge regression adds the same λ to every feature; FLDA adds to each "
            "feature its own λ, growing with θ/(1 − θ) of that feature, so features "
            "that often vanish in the target get small weights (infinite λ at θ = 1)."
        ),
        reference="derived from Equation (10) with the moments of section 3.3.1",
        anchor="eq-per-feature-ridge",
    ),
    Equation(
        key="taylor_term",
        title="FLDA-L: second-order Taylor term of the logistic loss",
        latex=(
            r"\begin{aligned} \mathbb{E}_{z \mid x_i}\!\left[A(w^\top z + b)\right] "
            r"&\approx A(a_i) + \tfrac{1}{2}\, p_i (1 - p_i)\, w^\top "
            r"\mathbb{V}[z \mid x_i]\, w, \\ a_i &= w^\top x_i + b, \quad "
            r"p_i = \sigma(a_i) \end{aligned}"
        ),
        explanation=(
            "The expected logistic loss is the ordinary loss plus a dropout penalty "
            "weighted by p(1 − p), strongest for samples near the boundary; the "
            "first-order term vanishes because dropout is unbiased (written for the "
            "standard logistic model used here; the paper's ±1 form of (13) lacks "
            "a factor 2: ½A''(a) = 2σ(2a)σ(−2a))."
        ),
        reference="Equation (13), section 3.4.2 (Algorithm 2)",
        anchor="eq-13-flda-l-taylor-term",
    ),
)

_BY_KEY = {e.key: e for e in EQUATIONS}


def equation(key):
    """The :class:`Equation` with this key (``KeyError`` names the valid keys)."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"No equation {key!r}; valid keys: {', '.join(_BY_KEY)}.") from None


def equation_link(key, page=""):
    """Markdown link to an equation's anchor on the equations panel.

    ``page`` is the URL path of the page that shows the panel (empty: this
    page).  The label is the paper's number ("Equation (11)") or, for an
    unnumbered formula, its title.
    """
    eq = equation(key)
    first = eq.reference.split(",")[0]
    label = first if first.startswith("Equation") else eq.title
    return f"[{label}]({page}#{eq.anchor})"
