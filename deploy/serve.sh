#!/usr/bin/env bash
# The FLDA explorer served by several Streamlit processes behind nginx, on one machine,
# every process supervised (deploy/serve.py does the work; docs/class-deployment.md).
#
#   PORT=8600 PROCESSES=2 bash deploy/serve.sh          in the foreground; Ctrl-C stops it
#   PORT=8600 PROCESSES=2 bash deploy/serve.sh start    in the background (survives logout)
#   PORT=8600 bash deploy/serve.sh stop | status
#
# Variables: PORT (default 8600), PROCESSES (default: the number of cores), ADDRESS
# (default 127.0.0.1; 0.0.0.0 lets the class's machines in), NGINX (default
# /usr/sbin/nginx), SUPERVISORD (default: supervisord on PATH), STREAMLIT_ARGS (more
# arguments for every `streamlit run`), PYTHON (default python3), RUN_DIR (configuration,
# logs and pid files; default $TMPDIR/flda-serve-<uid>-<PORT>).  Every process shares
# $FLDA_CACHE_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=$(command -v "${PYTHON:-python3}") || { echo "serve.sh: no ${PYTHON:-python3}" >&2; exit 1; }
exec "$PYTHON" deploy/serve.py "$@"
