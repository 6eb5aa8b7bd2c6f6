"""The estimated parameters of FLDA's transfer models as tables (issue 15):
:func:`transfer_parameter_table` (tidy, one row per feature and parameter) and
:func:`transfer_parameter_frame` (wide, beside the θ̂ table of section 3.3.1, with the
true values where the data's generator knows them).  Pure functions, no Streamlit; the
target errors of every transfer model are measured by ``benchmarks/bench_transfer_models.py``.

References
----------
Kouw, W. M., van der Maaten, L. J. P., Krijthe, J. H. and Loog, M. (2016).
Feature-Level Domain Adaptation. Journal of Machine Learning Research, 17(171), 1-32.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from flda_core.transfer_models import make_transfer_model


def transfer_parameter_frame(transfer, params, true_params=None, feature_names=None):
    """Estimated (and, where known, true) transfer parameters, one row per feature.

    The wide form of :func:`transfer_parameter_table`
    for display next to the error tables (as the dropout θ̂ table of section
    3.3.1).

    Parameters
    ----------
    transfer : str
        Name of the transfer model.
    params : dict of str -> array of shape (n_features,)
        Its estimated parameters (``FLDAClassifier.transfer_params_``).
    true_params : dict, optional
        Parameters that made the data (e.g. ``ShiftedDomainPair.true_params``);
        those sharing a name with an estimated parameter get a ``true``
        column and an ``estimate - true`` column.
    feature_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame
        Columns ``feature``, then per parameter ``estimated <p>`` (and
        ``true <p>``, ``estimate - true <p>``).
    """
    table = transfer_parameter_table(make_transfer_model(transfer, params), feature_names)
    frame = table.pivot(index="feature", columns="parameter", values="value")
    frame = frame.reindex(index=table["feature"].unique(), columns=list(params))
    out = pd.DataFrame({"feature": frame.index})
    for name in params:
        estimate = frame[name].to_numpy()
        out[f"estimated {name}"] = estimate
        if true_params is not None and name in true_params:
            truth = np.broadcast_to(np.asarray(true_params[name], dtype=float), estimate.shape)
            out[f"true {name}"] = truth
            out[f"estimate - true {name}"] = estimate - truth
    return out


def transfer_parameter_table(model, feature_names=None):
    """Tidy table of a model's parameters: one row per (feature, parameter).

    Parameters
    ----------
    model : TransferModel or fitted FLDAClassifier
    feature_names : sequence of str, optional

    Returns
    -------
    pandas.DataFrame with columns ``transfer``, ``feature``, ``parameter``, ``value``.
    """
    model = getattr(model, "transfer_model_", model)
    params = model.params()
    n = len(next(iter(params.values())))
    names = [f"x{d + 1}" for d in range(n)] if feature_names is None else list(feature_names)
    if len(names) != n:
        raise ValueError(f"{len(names)} feature names for {n} features.")
    rows = [(model.name, names[d], k, float(v[d])) for k, v in params.items() for d in range(n)]
    return pd.DataFrame(rows, columns=["transfer", "feature", "parameter", "value"])
