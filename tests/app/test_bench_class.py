"""benchmarks/bench_class.py: the protocol-level load generator (no browser).

The figures it prints go to its docstring's Results; these tests check that it
runs without errors and prints its JSON line, never how fast the server is.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "benchmarks" / "bench_class.py"
_SPEC = importlib.util.spec_from_file_location("bench_class", BENCH)
bench_class = sys.modules.setdefault("bench_class", importlib.util.module_from_spec(_SPEC))
_SPEC.loader.exec_module(bench_class)


@pytest.mark.parametrize(
    "url",
    [
        "http://example.com:8501",
        "http://10.0.0.2:8501",
        "https://127.0.0.1:8501",
        "http://127.0.0.1.example.com",
    ],
)
def test_it_refuses_every_host_but_loopback(url, capsys):
    with pytest.raises(ValueError, match="only http://127.0.0.1"):
        bench_class.check_loopback(url)
    with pytest.raises(SystemExit) as stopped:  # before any connection
        bench_class.main(["--url", url, "--sessions", "1", "--duration", "1"])
    assert stopped.value.code == 2 and "refusing" in capsys.readouterr().err


def test_loopback_urls_pass():
    assert bench_class.check_loopback("http://127.0.0.1:8501/") == "http://127.0.0.1:8501"
    assert bench_class.check_loopback("http://localhost:8600") == "http://localhost:8600"


def test_percentiles_are_values_that_happened():
    assert bench_class.percentile([], 95) is None
    assert bench_class.percentile([0.3, 0.1, 0.2], 50) == 0.2
    assert bench_class.percentile([0.1] * 19 + [9.0], 95) == 0.1
    assert bench_class.percentile([0.1] * 18 + [9.0] * 2, 95) == 9.0


@pytest.mark.slow
def test_two_students_against_a_running_server(tmp_path):
    """Against an already running server: every run finishes, the last line is JSON."""
    from e2e_harness import StreamlitServer

    server = StreamlitServer(log_path=tmp_path / "streamlit.log")
    try:
        done = subprocess.run(
            [
                sys.executable,
                str(BENCH),
                "--url",
                server.url,
                "--sessions",
                "2",
                "--duration",
                "6",
                "--think",
                "0.5",
                "1.5",
                "--seed",
                "3",
                "--server-pid",
                str(server.process.pid),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=ROOT,
        )
    finally:
        server.stop()
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr
    assert result["errors"] == 0 and result["sessions"] == 2
    assert {"p50", "p95", "reruns", "changes"} <= set(result)
    assert result["changes"] >= 1 and result["reruns"] >= 2 + result["changes"]
    assert 0 < result["p50"] <= result["p95"]
    # its CPU and memory from /proc, as given by --server-pid; the generator's own CPU
    assert result["server_cpu_s"] > 0 and result["server_peak_rss_mb"] > 50
    assert result["client_cpu_s"] > 0


def test_a_server_pid_that_is_not_running_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        bench_class.main(["--url", "http://127.0.0.1:9", "--server-pid", "999999999"])
    assert stop.value.code == 2
    assert "no process 999999999" in capsys.readouterr().err


def test_the_profile_prints_its_figures():
    done = subprocess.run(
        [sys.executable, str(BENCH), "--profile"], capture_output=True, text=True, timeout=300, cwd=ROOT
    )
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, done.stderr
    assert {"one_follow_ms", "state_change_ms_1_students", "state_change_ms_30_students"} <= set(result)
