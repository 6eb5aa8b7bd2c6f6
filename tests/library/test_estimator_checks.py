"""scikit-learn's estimator checks for both losses."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from flda_core.classifier import FLDAClassifier

# No expected failures: both losses, cold or warm-started, pass every check of
# scikit-learn 1.9.
EXPECTED_FAILED_CHECKS = {}


@parametrize_with_checks(
    [
        FLDAClassifier(loss="logistic"),
        FLDAClassifier(loss="quadratic"),
        # warm starts (L-BFGS and conjugate gradients): refits must stay idempotent etc.
        FLDAClassifier(loss="logistic", warm_start=True),
        FLDAClassifier(loss="quadratic", solver="cg", warm_start=True),
    ],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
