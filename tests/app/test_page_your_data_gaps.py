"""AppTest of the "Your data" page's one-file-with-gaps mode and its baselines option."""

import numpy as np
from apptest_support import charts, open_page

from explorer.experiments import baselines as bl
from explorer.experiments import paper_tables as pt

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
    assert rows.loc["SA", "error"] == pt.fit_cell("uci", "heart", "SA").error
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


def test_one_file_predictions_name_the_rows_of_the_file():
    """Issue 36: the predictions' row column is the data row in the file (7, 14, 21 …),
    in the table and in the CSV download; the true label shown is that row's label."""
    from explorer.ui.tables import csv_bytes

    labels = {i: ("x" if i % 4 < 2 else "y") for i in range(1, 121)}  # data row -> label
    raw = b"a,b,label\n" + b"".join(
        f"{i % 5 + 1},{'' if i % 7 == 0 else i % 3 + 1},{labels[i]}\n".encode() for i in range(1, 121)
    )
    at = open_page(PAGE, {"mode": "one"})
    at.file_uploader[0].set_value(("gaps.csv", raw, "text/csv")).run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    predictions = next(d.value for d in at.dataframe if "true_label" in d.value.columns)
    assert list(predictions["row"]) == list(range(7, 121, 7))
    assert [labels[r] for r in predictions["row"]] == list(predictions["true_label"])
    download = csv_bytes(predictions).decode().splitlines()
    assert [line.split(",")[0] for line in download[1:4]] == ["7", "14", "21"]
