"""benchmarks/bench_soak.py runs (so that it cannot rot): two students for a few
seconds through ``PROCESSES=2 bash deploy/serve.sh``, one process killed half-way.
Skipped without Debian's nginx or supervisor."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from e2e_harness import NGINX, QUIET_WARM_UPS, SKIP_NO_NGINX

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.access(NGINX, os.X_OK), reason=SKIP_NO_NGINX),
    pytest.mark.skipif(not os.access("/usr/bin/supervisord", os.X_OK), reason="apt-get install supervisor"),
]


def test_a_short_soak_kills_a_process_and_reports_one_json_line(tmp_path):
    env = {**os.environ, **{name: os.environ.get(name, "0") for name in QUIET_WARM_UPS}}
    command = [sys.executable, str(ROOT / "benchmarks" / "bench_soak.py"), "--students", "2"]
    command += ["--minutes", "0.3", "--think", "0.3", "0.6", "--log", str(tmp_path / "serve.log")]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert done.returncode == 0, (result, done.stderr[-2000:])
    assert result["serve_sh_exit"] == 0 and result["restart_s"] is not None  # the killed one came back
    assert result["errors_after_restart"] == 0 and result["killed_students_not_back"] == 0
    assert result["changes"] > 0 and result["other_p95"] is not None
    assert result["kill_at_s"] > 0 and result["server_peak_rss_mb"] > 100
    assert 100 < result["process_peak_rss_mb"] <= result["server_peak_rss_mb"]
    assert result["rss_mb_every_5_min"][0][0] == 0 and len(result["rss_mb_every_5_min"][0]) == 3
    assert set(result["load_avg"]) == {"start", "max", "end"}
