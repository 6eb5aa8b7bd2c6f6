"""AppTest of the "Your data" page's one-file-with-gaps mode and its baselines option."""

import numpy as np
from apptest_support import charts, open_page

from explorer.experiments import baselines as bl
from explorer.experiments import missing_data as md

PAGE = "pages/your_data.py"

ONE_FILE = b"a,b,c,label\n" + b"".join(
    (
        f"{i % 5},{(i * 7) % 4 + 1},{'' if i % 3 == 0 and i >= 40 else (i % 2) * 3 + 1},"
        f"{'x' if i % 2 else 'y'}\n"
    ).encode()
    for i in range(90)
)


def test_one_uci_file_is_split_into_complete_rows_and_rows_with_gaps():
    at = open_page(PAGE, {"mode": "one"})
    assert len(at.file_uploader) == 1
    at.button(key="data_uci_heart").click().run()
    assert not at.exception and not at.error
    errors = at.dataframe[0].value.set_index("classifier")
    assert set(errors["n_target"]) == {621}  # heart's rows with a gap
    assert errors.loc["FLDA-L", "error"] < errors.loc["S-LR", "error"]
    assert at.session_state["data.exclude"] == ["site"]
    assert any("621 of 621 rows" in i.value for i in at.info)


def test_baselines_option_adds_the_skada_rows():
    at = open_page(PAGE, {"mode": "one", "baselines": "true"})
    at.button(key="data_uci_heart").click().run()
    assert not at.exception and not at.error
    errors = at.dataframe[0].value
    rows = errors[errors["family"] == "baseline"].set_index("classifier")
    assert list(rows.index) == list(bl.BASELINES)
    # same data, same split, same scaling: the Real data page's numbers
    assert rows.loc["SA", "error"] == md.fit_one("heart", "SA").error
    chart = charts(at)[0]
    assert "KMM" in chart.spec


def test_uploaded_file_with_gaps_and_one_without():
    at = open_page(PAGE, {"mode": "one"})
    at.file_uploader[0].set_value(("gaps.csv", ONE_FILE, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    errors = at.dataframe[0].value
    n_gaps = sum(1 for i in range(90) if i % 3 == 0 and i >= 40)
    assert set(errors["n_target"]) == {n_gaps}
    assert np.all(errors["error"].between(0, 1))
    complete = b"a,b,label\n" + b"".join(f"{i},{i % 3},{i % 2}\n".encode() for i in range(20))
    at.file_uploader[0].set_value(("complete.csv", complete, "text/csv")).run()
    assert not at.exception
    assert any("no row with a missing feature value" in e.value for e in at.error)
