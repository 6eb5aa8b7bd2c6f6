"""flda_core: the numerical core of the FLDA dashboard.

Feature-level domain adaptation (Kouw, van der Maaten, Krijthe and Loog,
JMLR 2016) with a dropout transfer model.  This package never imports
streamlit: notebooks, tests and the dashboard all use the same functions.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from .classifier import FLDAClassifier
from .datasets.synthetic import DomainPair, make_bernoulli_domains, make_domains, make_poisson_domains
from .transfer import apply_dropout, estimate_dropout, nonzero_rate
from .transfer_models import TRANSFER_MODELS, make_transfer_model, transfer_parameter_table

__all__ = [
    "FLDAClassifier",
    "DomainPair",
    "apply_dropout",
    "estimate_dropout",
    "make_bernoulli_domains",
    "make_domains",
    "make_poisson_domains",
    "nonzero_rate",
    "TRANSFER_MODELS",
    "make_transfer_model",
    "transfer_parameter_table",
]
