"""Home page: what FLDA is and what each page shows."""

import streamlit as st

st.title("Feature-level domain adaptation, live")
st.markdown(
    """
A classifier is trained on labelled **source** data but must work on a **target**
domain whose data look different and come without labels. Kouw, van der Maaten,
Krijthe and Loog (*Feature-Level Domain Adaptation*, JMLR 2016) model the shift
feature by feature:

1. **Transfer model.** Target data are source data in which feature *d* is
   *dropped out* (set to zero) with probability θ_d, and the survivors are scaled
   by 1/(1 − θ_d). From how often each feature is non-zero in the source (η_d) and
   in the target (ζ_d) the maximum-likelihood estimate is
   θ_d = max(0, 1 − ζ_d / η_d).
2. **Adapted classifier.** Train on the source data, but minimise the *expected*
   loss when the source samples are corrupted by that dropout: **FLDA-Q** for the
   quadratic loss (closed form) and **FLDA-L** for the logistic loss (a Taylor
   approximation). Features that vanish in the target get their weights shrunk
   towards zero.

The naive classifiers trained on source data (S-LS, S-LR) and the oracles trained
on labelled target data (T-LS, T-LR) are shown alongside for comparison.
"""
)
