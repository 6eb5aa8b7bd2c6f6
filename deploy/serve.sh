#!/usr/bin/env bash
# The FLDA explorer served by several Streamlit processes behind nginx, on one machine,
# every process supervised.
#
#   PORT=8600 PROCESSES=2 bash deploy/serve.sh
#
# picks PROCESSES free loopback ports, writes into a run folder an nginx configuration
# (deploy/nginx.conf.template: sticky sessions by a validated cookie, websocket
# upgrade, failover to a live process) and a supervisord configuration, and runs
# Debian's supervisor (`supervisord -n`) in the foreground.  supervisord starts the
# PROCESSES `streamlit run app.py` processes and Debian's nginx (/usr/sbin/nginx, as
# the current user with the run folder as its prefix: no system configuration is read
# or changed) and restarts any of them that ends (`autorestart=true`): a process the
# out-of-memory killer ends is serving again within seconds while nginx sends its
# students to the others.  SIGTERM or SIGINT (Ctrl-C) stops supervisord, which stops
# nginx and every Streamlit process.
#
# Variables: PORT (default 8600), PROCESSES (default: the number of cores), ADDRESS
# (default 127.0.0.1; 0.0.0.0 lets the class's machines in), NGINX (default
# /usr/sbin/nginx), SUPERVISORD (default: supervisord on PATH), STREAMLIT_ARGS (more
# arguments for every `streamlit run`).  Every process shares $FLDA_CACHE_DIR: the disk
# stores lock across processes.  Uploads held by all processes together stay within a
# quarter of the machine's memory, or FLDA_UPLOADS_TOTAL_MB (each process gets its
# share: explorer/ui/uploads.py).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8600}
PROCESSES=${PROCESSES:-$(nproc)}
ADDRESS=${ADDRESS:-127.0.0.1}
NGINX=${NGINX:-/usr/sbin/nginx}
SUPERVISORD=${SUPERVISORD:-$(command -v supervisord || echo /usr/bin/supervisord)}
PYTHON=$(command -v "${PYTHON:-python3}")
RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/flda-serve.XXXXXX")
SUPERVISOR_PID=""

for program in "$NGINX" "$SUPERVISORD"; do
  if [ ! -x "$program" ]; then
    echo "serve.sh: no $program (apt-get install nginx supervisor)" >&2
    exit 1
  fi
done
case "$PROCESSES" in
  '' | *[!0-9]* | 0) echo "serve.sh: PROCESSES must be a whole number from 1" >&2; exit 1 ;;
esac

stop_all() {
  trap - TERM INT EXIT
  if [ -n "$SUPERVISOR_PID" ] && kill -0 "$SUPERVISOR_PID" 2>/dev/null; then
    # supervisord stops every program (SIGTERM, then SIGKILL after stopwaitsecs).
    kill -TERM "$SUPERVISOR_PID" 2>/dev/null || true
    wait "$SUPERVISOR_PID" 2>/dev/null || true
  fi
  echo "serve.sh: stopped nginx and $PROCESSES Streamlit processes (logs in $RUN_DIR)" >&2
}
trap 'stop_all; exit 0' TERM INT
trap 'stop_all' EXIT

PORTS=$("$PYTHON" - "$PROCESSES" <<'PY'
import socket
import sys

sockets = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in sockets:  # all bound at once: no port twice
    s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in sockets))
PY
)

# Upload size: .streamlit/config.toml's maxUploadSize (MB, Streamlit's default 200) + 1.
USER_LINE=""
if [ "$(id -u)" = 0 ]; then USER_LINE="user root;"; fi  # workers keep the temp folders' owner

# Both configurations, written by one Python program (values quoted for supervisord).
"$PYTHON" - "$RUN_DIR" "$ADDRESS:$PORT" "$USER_LINE" "$PYTHON" "$NGINX" "$PORTS" \
  "${STREAMLIT_ARGS:-}" <<'PY'
import shlex
import sys
import tomllib
from pathlib import Path

run_dir, listen, user_line, python, nginx, ports, streamlit_args = sys.argv[1:]
ports = ports.split()
try:
    config = tomllib.load(open(".streamlit/config.toml", "rb"))
except FileNotFoundError:
    config = {}
max_mb = int(config.get("server", {}).get("maxUploadSize", 200)) + 1

# nginx: one upstream per process (that process first, the others as backups), and
# "any" for a browser without a valid cookie; the cookie holds the answering
# process's index p1..pN, never an address (deploy/nginx.conf.template).
server = "server 127.0.0.1:{port} max_fails=1 fail_timeout=10s{backup};"
upstreams, cookie_map, answered_map = [], [], []
for i, port in enumerate(ports, 1):
    lines = [server.format(port=port, backup="")]
    lines += [server.format(port=p, backup=" backup") for p in ports if p != port]
    upstreams.append(f"    upstream flda_p{i} {{\n" + "".join(f"        {x}\n" for x in lines)
                     + "        keepalive 16;\n    }")
    cookie_map.append(f"        p{i} flda_p{i};")
    answered_map.append(f"        ~127\\.0\\.0\\.1:{port}$ p{i};")
upstreams.append("    upstream flda_any {\n" + "".join(
    f"        {server.format(port=p, backup='')}\n" for p in ports) + "        keepalive 16;\n    }")
text = Path("deploy/nginx.conf.template").read_text()
for name, value in {"RUN_DIR": run_dir, "LISTEN": listen, "MAX_BODY_MB": str(max_mb),
                    "USER_LINE": user_line, "UPSTREAMS": "\n".join(upstreams),
                    "COOKIE_MAP": "\n".join(cookie_map),
                    "ANSWERED_MAP": "\n".join(answered_map)}.items():
    text = text.replace(f"@{name}@", value)
Path(run_dir, "nginx.conf").write_text(text)

# supervisord: each program restarted whenever it ends; logs in the run folder.
def program(name, command, env=""):
    return (
        f"[program:{name}]\ncommand={command}\ndirectory={Path.cwd()}\n"
        "autostart=true\nautorestart=true\nstartsecs=1\nstartretries=5\n"
        "stopsignal=TERM\nstopwaitsecs=15\nstopasgroup=true\nkillasgroup=true\n"
        f"redirect_stderr=true\nstdout_logfile={run_dir}/{name}.log\n"
        "stdout_logfile_maxbytes=20MB\nstdout_logfile_backups=2\n"
        + (f"environment={env}\n" if env else "")
    )

q = shlex.quote
sections = [
    f"[supervisord]\nlogfile={run_dir}/supervisord.log\npidfile={run_dir}/supervisord.pid\n"
    f"childlogdir={run_dir}\nloglevel=info\n" + ("user=root\n" if user_line else ""),
    f"[unix_http_server]\nfile={run_dir}/supervisor.sock\nchmod=0700\n",
    "[rpcinterface:supervisor]\n"
    "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n",
    f"[supervisorctl]\nserverurl=unix://{run_dir}/supervisor.sock\n",
]
for i, port in enumerate(ports, 1):
    command = (
        f"{q(python)} -m streamlit run app.py --server.headless true --server.address 127.0.0.1 "
        f"--server.port {port} --server.runOnSave false --server.fileWatcherType none "
        f"--browser.gatherUsageStats false {streamlit_args}"
    )
    sections.append(program(f"streamlit-{i}", command.replace("%", "%%"),
                            env=f'FLDA_SERVER_PROCESSES="{len(ports)}"'))
sections.append(program(
    "nginx",
    f"{q(nginx)} -p {q(run_dir)} -e {q(run_dir + '/error.log')} -c {q(run_dir + '/nginx.conf')} "
    "-g 'daemon off;'",
))
Path(run_dir, "supervisord.conf").write_text("\n".join(sections))
PY

supervisorctl() {
  "$(dirname "$SUPERVISORD")/supervisorctl" -c "$RUN_DIR/supervisord.conf" "$@"
}

"$SUPERVISORD" -n -c "$RUN_DIR/supervisord.conf" &
SUPERVISOR_PID=$!
echo "serve.sh: supervisord (supervisor pid $SUPERVISOR_PID), configuration and logs in $RUN_DIR" >&2

# Wait (at most 120 s) until every process answers its health check.
i=0
for port in $PORTS; do
  i=$((i + 1))
  for _ in $(seq 1200); do
    if "$PYTHON" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/_stcore/health', timeout=2)" 2>/dev/null; then
      break
    fi
    kill -0 "$SUPERVISOR_PID" 2>/dev/null || { echo "serve.sh: supervisord ended; see $RUN_DIR" >&2; exit 1; }
    sleep 0.1
  done
  echo "serve.sh: Streamlit process $i (pid $(supervisorctl pid "streamlit-$i")) on 127.0.0.1:$port, log $RUN_DIR/streamlit-$i.log" >&2
done
echo "serve.sh: nginx (pid $(supervisorctl pid nginx)) on http://$ADDRESS:$PORT -> $PROCESSES Streamlit processes" >&2

# In the foreground until a signal (the trap stops supervisord) or supervisord's end.
set +e
wait "$SUPERVISOR_PID"
status=$?
SUPERVISOR_PID=""
echo "serve.sh: supervisord ended (status $status)" >&2
exit 1
