"""benchmarks/run_all.py: one command runs every benchmark and ends with issue 41's figures.

The figures come from the JSON line each benchmark prints last; these tests feed it
such lines and check the summary reads the right fields (no benchmark runs here).
"""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_SPEC = importlib.util.spec_from_file_location("run_all", ROOT / "benchmarks" / "run_all.py")
run_all = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(run_all)


def test_the_last_json_object_of_a_run_is_its_result():
    lines = ['{"a": 1}', "progress 50 %", '{"p95": 0.2}', "[1, 2]", "done"]
    assert run_all.last_json(lines) == {"p95": 0.2}
    assert run_all.last_json(["no json here"]) is None


def test_the_class_runs_are_the_deployment_the_issue_measures():
    runs = {name: args for name, args, _ in run_all.RUNS["bench_class.py"]}
    for name in ("class of 60", "class of 200", "200 idle phones"):
        args = runs[name]
        assert args[args.index("--serve") + 1] == "2" and "--class" in args
    assert runs["class of 200"][runs["class of 200"].index("--sessions") + 1] == "200"
    assert "--idle" in runs["200 idle phones"]


def test_the_summary_reads_every_figure_from_the_runs():
    results = {
        ("bench_class.py", "class of 60"): {
            "follow_p50": 0.04,
            "follow_p95": 0.19,
            "vote_p50": 0.01,
            "vote_p95": 0.15,
            "votes_sent": 1440,
            "votes_counted": 1440,
            "stalls": 0,
            "errors": 0,
        },
        ("bench_class.py", "200 idle phones"): {"server_cpu_percent_of_one_core": 4.5},
        ("bench_class.py", "browsing, 60 through serve.sh"): {"p95": 0.78, "errors": 0},
        ("bench_browser.py", ""): {
            "floor": {"median": 1.1, "p95": 1.2},
            "/synthetic": {"median": 1.375, "p95": 1.7, "x_floor": 1.25, "paired_floor": 1.1},
            "Synthetic: type a new θ (10k/domain)": {"median": 0.22, "p95": 0.33},
            "Lesson slides: Page Down -> Reveal/Next shown": {"median": 0.02, "p95": 0.035},
        },
        ("bench_soak.py", ""): {
            "minutes": 10.0,
            "kill_at_s": 300.0,
            "process_peak_rss_mb": 460.2,
            "restart_s": 3.9,
        },
    }
    rows = {figure: (value, goal) for figure, value, goal in run_all.room_summary(results)}
    assert rows["class of 60: follow p50 / p95"][0] == "0.04s / 0.19s"
    assert rows["class of 60: votes counted / sent"][0] == "1440 / 1440"
    assert rows["200 idle phones: server CPU"][0] == "4.5 % of a core"
    assert rows["60 browsing, serve.sh: change p95"][0] == "0.78s"
    assert rows["first chart /synthetic (x its floor)"][0] == "1.38s (1.2x 1.10s)"
    assert rows["Synthetic: type a new θ (10k/domain)"] == ("0.220s", "<= 0.3 s")
    assert rows["Lesson slides: Page Down -> Reveal/Next shown"][1] == "<= 0.2 s"
    assert rows["soak 10 min, a kill: largest process"][0] == "460 MB"
    assert rows["soak: restarted process serves again"][0] == "3.90s"
    assert not any("class of 200" in figure for figure in rows)  # a run that printed nothing


def test_a_failed_run_leaves_its_figures_out():
    assert run_all.room_summary({("bench_class.py", "class of 60"): None}) == []
