"""Home page: what FLDA is and what each page shows."""

import streamlit as st

from explorer.ui import common as ui_common

st.title("Feature-level domain adaptation, live")
st.markdown(
    """
A classifier is trained on labelled **source** data but must work on a **target**
domain whose data look different and come without labels. Kouw, van der Maaten,
Krijthe and Loog (*Feature-Level Domain Adaptation*, JMLR 2016) model the shift
feature by feature:

1. **Transfer model.** Target data are source data in which feature $d$ is
   *dropped out* (set to zero) with probability $\\theta_d$, and the survivors are
   scaled by $1/(1 - \\theta_d)$. From how often each feature is non-zero in the
   source ($\\eta_d$) and in the target ($\\zeta_d$) the maximum-likelihood estimate is
   $\\hat\\theta_d = \\max(0,\\, 1 - \\zeta_d / \\eta_d)$.
2. **Adapted classifier.** Train on the source data, but minimise the *expected*
   loss when the source samples are corrupted by that dropout: **FLDA-Q** for the
   quadratic loss (closed form) and **FLDA-L** for the logistic loss (a Taylor
   approximation). Features that vanish in the target get their weights shrunk
   towards zero.

The naive classifiers trained on source data (S-LS, S-LR) and the oracles trained
on labelled target data (T-LS, T-LR) are shown alongside for comparison.
"""
)

st.subheader("What each page shows")
PAGES = (
    ("pages/lesson.py", "Lesson", ":material/school:",
     "Start here: the paper in eight steps, each with its live figure, the one or two "
     "controls that matter, a question for the class (answer revealed on request) and a "
     "link to the full page with the same settings."),
    ("pages/synthetic.py", "Synthetic domains", ":material/scatter_plot:",
     "Bernoulli and Poisson toy problems with the decision boundaries of S-LS/T-LS/FLDA-Q "
     "and S-LR/T-LR/FLDA-L, target errors and θ̂ beside the true θ; one-click presets "
     "for the paper's Figures 1 and 2 (section 4.1.1)."),
    ("pages/transfer.py", "Transfer parameters", ":material/tune:",
     "What a wrong θ̂ costs: FLDA's boundary and target error when θ̂ is perturbed, "
     "with sliders for your own θ; the paper's Table 1 and Figure 4 (section 4.1.3)."),
    ("pages/learning_curves.py", "Learning curves", ":material/show_chart:",
     "How many samples FLDA needs to adapt: error against training-set size on source "
     "and target (Figure 3, section 4.1.2)."),
    ("pages/digits.py", "Handwritten digits", ":material/draw:",
     "MNIST-like versus USPS-like digits: where pixels drop out, and how FLDA-L's "
     "weights differ from the naive classifier's (Figures 5-6, section 4.2.3)."),
    ("pages/your_data.py", "Your data", ":material/upload_file:",
     "Upload source and target CSVs (or use the samples) and compare FLDA with the "
     "naive classifiers on your own problem."),
)
for path, title, icon, text in PAGES:
    ui_common.page_link(path, label=title, icon=icon, help=f"Open the {title} page.")
    st.caption(text)

st.subheader("Tips for class")
st.markdown(
    """
- The **random seed** in the sidebar is shared by every page: the same seed always
  reproduces the same numbers.
- Every page keeps its settings in the **address bar**: copy the URL to share an exact
  configuration.
- Add **`?present=1`** to a page's URL (or `&present=1` after its settings) for a
  lecture: the sidebar is hidden, each page keeps its few live controls in one row,
  and figures get projector-sized text. The mode stays on while you switch pages;
  `?present=0` switches it off.
- Every chart's camera button saves a slide-sized PNG (3200 × 1800) with the whole
  legend, or SVG (choice in the sidebar).
"""
)
if ui_common.presentation_mode():
    st.info("Presentation mode is on: pages show figures without their controls.",
            icon=":material/slideshow:")
