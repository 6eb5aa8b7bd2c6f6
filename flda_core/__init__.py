"""flda_core: feature-level domain adaptation as a scikit-learn classifier.

Feature-level domain adaptation (Kouw, van der Maaten, Krijthe and Loog,
JMLR 2016) with a dropout transfer model and its relatives, FLDA-Q and FLDA-L
(``FLDAClassifier``), the ridge penalty chosen by cross-validation on the
source (``FLDAClassifierCV``), and the authors' data files of the paper's
Tables 5, 7 and 8 read as its protocol needs (``load_paper_domains``,
``paper_l2s``).  It needs numpy, scipy, scikit-learn and threadpoolctl only.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research
17(171), 1-32.
"""

from importlib import import_module

#: The package version, read by the build (pyproject.toml) as the wheel's version.
__version__ = "1.1.0"

#: Public name -> submodule that defines it.  Imported on first use (PEP 562), so
#: importing the package (or one light submodule) does not pull in
#: scikit-learn and scipy.
_LAZY = {
    "FLDAClassifier": ".classifier",
    "FLDAClassifierCV": ".selection",
    "blas_threads": ".solvers",
    "DomainPair": ".synthetic",
    "make_bernoulli_domains": ".synthetic",
    "make_domains": ".synthetic",
    "make_poisson_domains": ".synthetic",
    "apply_dropout": ".transfer",
    "estimate_dropout": ".transfer",
    "nonzero_rate": ".transfer",
    "TRANSFER_MODELS": ".transfer_models",
    "make_transfer_model": ".transfer_models",
    "load_paper_domains": ".paper_data",
    "paper_l2s": ".paper_data",
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
    "__version__",
    "FLDAClassifier",
    "FLDAClassifierCV",
    "blas_threads",
    "DomainPair",
    "apply_dropout",
    "estimate_dropout",
    "make_bernoulli_domains",
    "make_domains",
    "make_poisson_domains",
    "nonzero_rate",
    "TRANSFER_MODELS",
    "make_transfer_model",
    "load_paper_domains",
    "paper_l2s",
]
