"""scikit-learn's estimator checks for both losses."""

from sklearn.utils.estimator_checks import parametrize_with_checks

from flda_core.classifier import FLDAClassifier

# No expected failures: both losses pass every check of scikit-learn 1.9.
EXPECTED_FAILED_CHECKS = {}


@parametrize_with_checks(
    [FLDAClassifier(loss="logistic"), FLDAClassifier(loss="quadratic")],
    expected_failed_checks=lambda est: EXPECTED_FAILED_CHECKS,
)
def test_sklearn_compatible_estimator(estimator, check):
    check(estimator)
