"""What "Your data" shows of its results: the report on the prepared files and steps 3 on
(errors, θ̂ per feature, re-weighted features, predictions, transfer parameters).

User text (file, column and class names) is escaped wherever it is shown; the figures
come from :mod:`explorer.figures.tabular` and escape it themselves.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from explorer.experiments import your_data as yd
from explorer.experiments.transfer_models import transfer_parameter_frame
from explorer.figures import tabular as figs
from explorer.names import TABLE_CLASSIFIERS
from explorer.safe_text import escape_markdown as esc
from explorer.ui import charts, tables
from flda_core.transfer_models import TRANSFER_MODELS

#: What each classifier is (column help of the tables).
CLASSIFIER_HELP = {
    "S-LS": "least squares trained on the source only (no adaptation)",
    "S-LR": "logistic regression trained on the source only (no adaptation)",
    "FLDA-Q": "FLDA with the quadratic loss (Algorithm 1), adapted to the target",
    "FLDA-L": "FLDA with the logistic loss (Algorithm 2), adapted to the target",
    "T-LR": "logistic regression trained on the target labels: the oracle, out of reach in practice",
}


def show_report(prepared, source_name, target_name):
    """What was used of the two files, missing values, renamed columns and warnings."""
    report, n_features, classes = prepared.report, len(prepared.feature_names), prepared.classes
    st.markdown(
        f"Using **{prepared.X_source.shape[0]:,}** source rows and "
        f"**{prepared.X_target.shape[0]:,}** target rows with **{n_features:,}** feature"
        f"{'s' if n_features != 1 else ''}, label **{esc(prepared.label)}** "
        f"({len(classes)} classes: {esc(', '.join(map(str, classes[:10])))}"
        f"{', …' if len(classes) > 10 else ''}). "
        + (
            f"{report.target_labels:,} target rows are labelled (used for evaluation only)."
            if report.target_labels
            else "The target has no labels: predictions only."
        )
    )
    st.info(report.missing_summary(), icon=":material/info:")  # counts only, no user text
    if report.renamed:
        pairs = ", ".join(f"{a!r} ↔ {b!r}" for a, b in report.renamed[:6])
        more = f" and {len(report.renamed) - 6} more" if len(report.renamed) > 6 else ""
        st.info(
            f"Matched by position: {len(report.renamed)} column pair(s) have different "
            f"names ({esc(pairs)}{more}).",
            icon=":material/info:",
        )
    shown = tuple(f"{n} is not valid UTF-8" for n in (source_name, target_name))
    for note in report.warnings:
        if not note.startswith(shown):  # those are shown under the uploader
            st.warning(esc(note), icon=":material/warning:")


def error_columns():
    """Column labels, widths and help of the error table (all columns fit at 1280 px)."""
    column = st.column_config
    return {
        "classifier": column.TextColumn(
            "classifier",
            width=85,
            help="The paper's names: S- trained on the source, FLDA- adapted to the "
            "target, T- trained on the target labels (the oracle); -LS/-Q quadratic "
            "loss, -LR/-L logistic loss.",
        ),
        "family": column.TextColumn(
            "family",
            width=65,
            help="source: naive source classifier (orange); flda: FLDA (green); "
            "target: oracle (purple); baseline: skada domain adaptation (blue).",
        ),
        "error": column.NumberColumn(
            "error", width=65, format="%.3f", help="Fraction of the labelled target rows classified wrongly."
        ),
        "errors": column.NumberColumn(
            "wrong", width=65, format="%d", help="Number of labelled target rows classified wrongly."
        ),
        "n_target": column.NumberColumn(
            "labelled rows",
            width=105,
            format="%d",
            help="Labelled target rows the error is computed on (the same for every "
            "classifier; rows without a label are left out).",
        ),
    }


def prediction_columns(predictions):
    """Column labels, widths and help of the prediction tables."""
    column = st.column_config
    config = {
        "row": column.NumberColumn(
            "row",
            width=55,
            format="%d",
            help="Data row in the target file (1 = the first row below the header).",
        ),
        "true_label": column.TextColumn(
            "true label", help="The label in the target file. Used for the error only; FLDA never sees it."
        ),
    }
    for name in TABLE_CLASSIFIERS:
        if name in predictions.columns:
            config[name] = column.TextColumn(
                name, help=f"Class predicted by {name}: {CLASSIFIER_HELP[name]}."
            )
    for name, cls in yd.probability_columns(predictions):
        config[name] = column.NumberColumn(
            f"P({cls})",
            format="%.3f",
            help=f"{yd.PROBABILITY_MODEL}'s probability that the row is of class "
            f"{esc(repr(cls))} (the probabilities of a row sum to 1).",
        )
    return config


def show_errors(errors, settings):
    """Step 3: the error of every classifier on the labelled target rows."""
    if not len(errors):
        st.info(
            "The target has no labels, so no errors can be computed; the predictions "
            "are below. Add a label column to the target file to compare classifiers.",
            icon=":material/info:",
        )
        return
    left, right = st.columns([1, 1])
    # The chart first: a tab's first run ends with its first chart (charts.show_chart).
    with right:
        charts.show_chart(
            figs.target_error_figure(errors),
            "data_errors_chart",
            "target error per classifier on your data",
            settings=settings,
        )
    with left:
        st.dataframe(errors, hide_index=True, width="stretch", column_config=error_columns())
        tables.download_csv(
            "Download errors (CSV)",
            errors,
            file_name="flda_errors.csv",
            key="data_download_errors",
            help="The error table: classifier, error rate, number wrong, "
            "family and number of labelled target rows.",
        )
    st.caption(
        "Error on the labelled target rows, one row of the paper's error tables "
        "(Table 3 for missing data at test time, section 4.2.2; Tables 7-9 for IMDB, "
        "spam and Amazon). Look at whether FLDA-Q/FLDA-L (green) close the gap between the "
        "source classifiers S-LS/S-LR (orange) and the T-LR oracle (purple), which was "
        "trained on the target labels and is out of reach in practice."
    )


def features_shown(thetas, top_n, which="with the largest θ̂", of_all=True):
    """``"the N features with the largest θ̂ (of M)"``, or ``"all M features"``."""
    n_shown, n_total = min(top_n, len(thetas)), len(thetas)
    if n_shown == n_total:
        return f"all {n_total} features"
    return f"the {n_shown} features {which}" + (f" (of {n_total})" if of_all else "")


def show_thetas(thetas, top_n, source_name, target_name, settings):
    """Step 4: θ̂ per feature, and the non-zero shares behind it."""
    left, right = st.columns(2)
    with left:
        charts.show_chart(
            figs.feature_theta_figure(thetas, top_n),
            "data_theta_chart",
            "estimated dropout per feature on your data",
            settings=settings,
        )
        st.caption(
            f"Estimated dropout probability θ̂ = max(0, 1 − ζ/η) of "
            f"{features_shown(thetas, top_n)} "
            "(section 3.3.1), η and ζ being the fractions of source and target rows where a "
            "feature is non-zero. Look at the top: these features go missing most often in "
            "the target, and FLDA trusts them least. The middle panel of the paper's "
            "Figure 6 shows θ̂ for digits."
        )
    with right:
        charts.show_chart(
            figs.nonzero_proportion_figure(thetas, top_n, source_name, target_name),
            "data_nonzero_chart",
            "non-zero share per feature in source and target",
            settings=settings,
        )
        changed = features_shown(thetas, top_n, "that differ most", of_all=False)
        st.caption(
            "Share of rows in which each feature is non-zero, in source and target, for "
            f"{changed} (largest difference on top), like the paper's word-proportion "
            "figures for IMDB, spam and Amazon (section 4.2). A feature rarer in the target "
            "gets θ̂ > 0; one that is *more* common in the target cannot be explained by "
            "dropout (θ̂ = 0)."
        )
    tables.download_csv(
        "Download θ̂ per feature (CSV)",
        thetas,
        file_name="flda_theta.csv",
        key="data_download_theta",
        help="Per feature: θ̂, the non-zero proportions in source and target and (binary "
        "tasks) the S-LR and FLDA-L weights.",
    )


def show_weights(thetas, top_n, positive_class, settings):
    """Step 5 (binary tasks): the weights of S-LR and FLDA-L per feature."""
    charts.show_chart(
        figs.feature_weights_figure(thetas, top_n),
        "data_weights_chart",
        "naive and flda weights per feature on your data",
        settings=settings,
    )
    st.caption(
        f"Weights of S-LR and FLDA-L (positive favours class {esc(repr(positive_class))}) "
        f"for {features_shown(thetas, top_n)}, the largest θ̂ on top. "
        "FLDA shrinks the weights of features that "
        "are often missing in the target and leans on the reliable ones, as the right "
        "panel of the paper's Figure 6 shows for digit pixels."
    )


def show_predictions(predictions, prepared, settings):
    """Step 6: the class shares of the predictions, and the predictions per row."""
    probabilities = [name for name, _ in yd.probability_columns(predictions)]
    config = prediction_columns(predictions)
    left, right = st.columns([2, 3])
    with left:
        charts.show_chart(
            figs.prediction_mix_figure(predictions, prepared.classes),
            "data_predictions_chart",
            "predicted class shares on the target",
            settings=settings,
        )
        st.caption(
            "Share of target rows assigned to each class by S-LR, FLDA-Q and FLDA-L"
            + (" next to the true labels" if prepared.has_target_labels else "")
            + ". A classifier hurt by the domain shift often piles its predictions "
            "onto one class (missing features look like small values)."
        )
    with right:
        labels = [c for c in predictions.columns if c not in probabilities]
        table = dict(hide_index=True, width="stretch", column_config=config)
        st.dataframe(predictions, height=320, column_order=labels, **table)
        if probabilities:
            with st.expander(f"{yd.PROBABILITY_MODEL}'s class probabilities per row"):
                order = ["row", yd.PROBABILITY_MODEL, *probabilities]
                st.dataframe(predictions, height=280, column_order=order, **table)
        tables.download_csv(
            "Download predictions (CSV)",
            predictions,
            file_name="flda_predictions.csv",
            key="data_download_predictions",
            help="One row per target row (row = data row in the target file): the true label "
            "if any, the prediction of every classifier and FLDA-L's class "
            "probabilities.",
        )


def show_results(prepared, results, names, top_n, settings, baseline_rows=()):
    """Steps 3 on: ``results`` are the θ̂, error and prediction tables of the fits
    (``names``: the source and target files' names), the baselines' error rows added."""
    thetas, errors, predictions = results
    if baseline_rows and len(errors):
        errors = pd.concat([errors, pd.DataFrame(list(baseline_rows))], ignore_index=True)
    steps = iter(range(3, 10))  # steps 1 and 2 are the loaders and the options
    st.subheader(f"{next(steps)} · Error on the target")
    show_errors(errors, settings)
    st.subheader(f"{next(steps)} · Which features go missing in the target")
    show_thetas(thetas, top_n, *names, settings)
    if "FLDA-L weight" in thetas.columns:
        st.subheader(f"{next(steps)} · How FLDA re-weights the features")
        show_weights(thetas, top_n, prepared.classes[-1], settings)
    st.subheader(f"{next(steps)} · Target predictions")
    show_predictions(predictions, prepared, settings)


def show_transfer_parameters(prepared, models):
    """FLDA's estimated parameters when its transfer model is not dropout (issue 15)."""
    flda = next((models[n] for n in ("FLDA-L", "FLDA-Q") if n in models), None)
    if flda is None or flda.transfer == "dropout":
        return
    params = flda.transfer_params_
    frame = transfer_parameter_frame(flda.transfer, params, feature_names=prepared.feature_names)
    st.subheader(f"Transfer model '{flda.transfer}': estimated parameters")
    if flda.transfer == "imputation":
        st.info(
            f"Imputation needs missing cells kept as gaps; here they were filled (largest "
            f"θ̂ = {params['theta'].max():.3f}), so FLDA-Q/FLDA-L equal "
            "the source classifiers. The Real data page keeps the gaps for this model.",
            icon=":material/info:",
        )
    st.dataframe(frame, hide_index=True, width="stretch", column_config=tables.number_columns(frame))
    st.caption(
        "Per feature, the parameters FLDA-Q and FLDA-L used, estimated from the "
        "source and the unlabelled target. The model: " + TRANSFER_MODELS[flda.transfer]
    )
    tables.download_csv(
        "Download parameters (CSV)",
        frame,
        file_name="flda_transfer_parameters.csv",
        key="data_download_transfer",
        help="The estimated transfer parameters per feature as CSV.",
    )
