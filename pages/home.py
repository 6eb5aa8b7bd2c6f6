"""Home page: what FLDA is and what each page shows (every page of :mod:`explorer.registry`)."""

import streamlit as st

from explorer.registry import PAGES
from explorer.ui import navigation, state

navigation.leave_pages_directory_mode()  # a deep link to /home on a fresh server
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
for page in PAGES:
    if page.default:
        continue  # this page
    navigation.page_link(page.script, label=page.title, icon=page.icon, help=f"Open the {page.title} page.")
    st.caption(page.blurb)

st.subheader("Tips for class")
st.markdown(
    """
- The **random seed** in the sidebar is shared by every page: the same seed always
  reproduces the same numbers.
- Every page keeps its settings in the **address bar**: copy the URL to share an exact
  configuration.
- Add **`?present=1`** to a page's URL (or `&present=1` after its settings) for a
  lecture: the Lesson's steps become slides with their live controls, and a full page
  hides its sidebar and controls and gives its figures projector-sized text. The mode
  stays on while you switch pages; `?present=0` switches it off.
- Every chart's camera button saves a slide-sized PNG (3200 × 1800) with the whole
  legend.
"""
)
if state.presentation_mode():
    st.info(
        "Presentation mode is on: pages show figures without their controls.", icon=":material/slideshow:"
    )
