#!/usr/bin/env bash
# The FLDA explorer served by several Streamlit processes behind nginx, on one machine.
#
#   PORT=8600 PROCESSES=2 bash deploy/serve.sh
#
# starts PROCESSES `streamlit run app.py` processes on free loopback ports and Debian's
# nginx (/usr/sbin/nginx, run as the current user with its own prefix, pid file, logs
# and temporary folders under a temporary directory; no system configuration is read
# or changed) listening on 127.0.0.1:PORT with sticky sessions and websocket upgrade
# (deploy/nginx.conf.template explains both).  It stays in the foreground; SIGTERM or
# SIGINT (Ctrl-C) stops nginx and every Streamlit process, and so does the end of any
# one of them.
#
# Variables: PORT (default 8600), PROCESSES (default: the number of cores), ADDRESS
# (default 127.0.0.1; 0.0.0.0 lets the class's machines in), NGINX (default
# /usr/sbin/nginx), STREAMLIT_ARGS (more arguments for every `streamlit run`).
# Every process shares $FLDA_CACHE_DIR: the disk stores lock across processes.  Uploads
# held by all processes together stay within a quarter of the machine's memory, or
# FLDA_UPLOADS_TOTAL_MB (each process gets its share: explorer/ui/uploads.py).
set -euo pipefail
cd "$(dirname "$0")/.."

PORT=${PORT:-8600}
PROCESSES=${PROCESSES:-$(nproc)}
ADDRESS=${ADDRESS:-127.0.0.1}
NGINX=${NGINX:-/usr/sbin/nginx}
PYTHON=${PYTHON:-python3}
RUN_DIR=$(mktemp -d "${TMPDIR:-/tmp}/flda-serve.XXXXXX")
PIDS=()
NGINX_PID=""

stop_all() {
  trap - TERM INT EXIT
  if [ -n "$NGINX_PID" ]; then kill -TERM "$NGINX_PID" 2>/dev/null || true; fi
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  # Give them 15 s, then force: nothing is left behind.
  for _ in $(seq 150); do
    alive=0
    for pid in "$NGINX_PID" "${PIDS[@]}"; do
      if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then alive=1; fi
    done
    [ "$alive" = 0 ] && break
    sleep 0.1
  done
  for pid in "$NGINX_PID" "${PIDS[@]}"; do
    if [ -n "$pid" ]; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  wait 2>/dev/null || true
  echo "serve.sh: stopped nginx and ${#PIDS[@]} Streamlit processes (logs in $RUN_DIR)" >&2
}
trap 'stop_all; exit 0' TERM INT
trap 'stop_all' EXIT

if [ ! -x "$NGINX" ]; then
  echo "serve.sh: no nginx at $NGINX (apt-get install nginx)" >&2
  exit 1
fi

free_port() {
  "$PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

SERVERS=""
for i in $(seq "$PROCESSES"); do
  port=$(free_port)
  FLDA_SERVER_PROCESSES=$PROCESSES \
  "$PYTHON" -m streamlit run app.py --server.headless true --server.address 127.0.0.1 \
    --server.port "$port" --server.runOnSave false --server.fileWatcherType none \
    --browser.gatherUsageStats false ${STREAMLIT_ARGS:-} \
    >"$RUN_DIR/streamlit-$i.log" 2>&1 &
  PIDS+=("$!")
  SERVERS+="        server 127.0.0.1:$port max_fails=0;"$'\n'
  echo "serve.sh: Streamlit process $i (pid $!) on 127.0.0.1:$port, log $RUN_DIR/streamlit-$i.log" >&2
done

# Wait (at most 120 s) until every process answers its health check.
for port in $(grep -o '127.0.0.1:[0-9]*' <<<"$SERVERS" | cut -d: -f2); do
  for _ in $(seq 1200); do
    if "$PYTHON" -c "import urllib.request as u; u.urlopen('http://127.0.0.1:$port/_stcore/health', timeout=2)" 2>/dev/null; then
      break
    fi
    for pid in "${PIDS[@]}"; do
      kill -0 "$pid" 2>/dev/null || { echo "serve.sh: a Streamlit process ended; see $RUN_DIR" >&2; exit 1; }
    done
    sleep 0.1
  done
done

# Upload size: .streamlit/config.toml's maxUploadSize (MB, Streamlit's default 200) + 1.
MAX_MB=$("$PYTHON" -c '
import tomllib
try:
    config = tomllib.load(open(".streamlit/config.toml", "rb"))
except FileNotFoundError:
    config = {}
print(int(config.get("server", {}).get("maxUploadSize", 200)) + 1)')
USER_LINE=""
if [ "$(id -u)" = 0 ]; then USER_LINE="user root;"; fi  # workers keep the temp folders' owner

"$PYTHON" - "$RUN_DIR" "$ADDRESS:$PORT" "$MAX_MB" "$USER_LINE" "$SERVERS" <<'PY'
import sys
from pathlib import Path

run_dir, listen, max_mb, user_line, servers = sys.argv[1:]
text = Path("deploy/nginx.conf.template").read_text()
for name, value in {"RUN_DIR": run_dir, "LISTEN": listen, "MAX_BODY_MB": max_mb,
                    "USER_LINE": user_line, "SERVERS": servers.rstrip("\n")}.items():
    text = text.replace(f"@{name}@", value)
Path(run_dir, "nginx.conf").write_text(text)
PY

"$NGINX" -p "$RUN_DIR" -e "$RUN_DIR/error.log" -c "$RUN_DIR/nginx.conf" -g "daemon off;" &
NGINX_PID=$!
echo "serve.sh: nginx (pid $NGINX_PID) on http://$ADDRESS:$PORT -> $PROCESSES Streamlit processes" >&2

# In the foreground until a signal, or until nginx or a Streamlit process ends.
set +e
wait -n "$NGINX_PID" "${PIDS[@]}"
status=$?
echo "serve.sh: a child ended (status $status); stopping the others" >&2
exit 1
