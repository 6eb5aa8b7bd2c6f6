"""flda_core: feature-level domain adaptation as a scikit-learn classifier.

Feature-level domain adaptation (Kouw, van der Maaten, Krijthe and Loog,
JMLR 2016) with a dropout transfer model and its relatives, on numpy, scipy
and scikit-learn alone.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from importlib import import_module

#: Public name -> submodule that defines it.  Imported on first use (PEP 562), so
#: importing one light submodule does not pull in scikit-learn and scipy.
_LAZY = {
    "FLDAClassifier": ".classifier",
    "DomainPair": ".synthetic",
    "make_bernoulli_domains": ".synthetic",
    "make_domains": ".synthetic",
    "make_poisson_domains": ".synthetic",
    "apply_dropout": ".transfer",
    "estimate_dropout": ".transfer",
    "nonzero_rate": ".transfer",
    "TRANSFER_MODELS": ".transfer_models",
    "make_transfer_model": ".transfer_models",
}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


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
]
