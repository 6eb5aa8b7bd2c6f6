"""``deploy/serve.sh``: the FLDA explorer as several supervised Streamlit processes behind
nginx, on one machine (docs/class-deployment.md).  Standard library only.

``run`` (the default) stays in the foreground: it writes an nginx configuration
(``deploy/nginx.conf.template``) and a supervisord configuration into the run folder,
starts Debian's supervisord in a session of its own (a terminal's hang-up does not
reach it), which starts ``PROCESSES`` ``streamlit run app.py`` processes and nginx and
restarts any that ends, then watches: a process whose health check stops answering is
killed (supervisord starts it again), a program supervisord gave up on (FATAL) is
started again with a back-off, and if supervisord itself dies, what it left is stopped
and everything started again.  SIGTERM or SIGINT stops everything; SIGHUP is ignored.
``start`` runs the same detached (output in the run folder's ``serve.log``), ``stop``
stops it, ``status`` lists the programs.

Everything a run starts lives in supervisord's session; the run folder (one per
``PORT``) records it, so a later run or ``stop`` stops what a crashed run left, and
only that.
"""

from __future__ import annotations

import argparse
import http.client
import os
import resource
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import tomllib
import xmlrpc.client
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = ROOT / "deploy" / "nginx.conf.template"

#: Open files wanted for nginx and every process (a held request costs nginx two and the
#: process one); the soft limit is raised to this or to the hard limit, if lower.
NOFILE_WANTED = 65536
#: Below this many open files serve.sh warns (about 4,000 held requests).
NOFILE_WARN = 8192
#: nginx's worker_connections at most (a few hundred bytes each, allocated at start).
WORKER_CONNECTIONS_MAX = 32768
#: The watchdog checks every process's health this often, each check waiting at most
#: HEALTH_TIMEOUT_S; a process that answered before and has not answered for HUNG_S,
#: or a new one that has not answered within START_S, is killed.
CHECK_S, HEALTH_TIMEOUT_S, HUNG_S, START_S = 2.0, 3.0, 12.0, 180.0
#: supervisord tries a program that ends within its startsecs STARTRETRIES + 1 times (1,
#: 2, 3 s apart), then gives up (FATAL); serve.py then starts it again after these waits
#: (the last repeated for ever).
STARTRETRIES = 3
FATAL_BACKOFF_S = (10.0, 20.0, 40.0, 60.0)
#: Waits before starting supervisord again after it died (the last repeated).
SUPERVISOR_BACKOFF_S = (1.0, 2.0, 5.0, 10.0, 30.0)
#: Streamlit's websocket ping interval when server.websocketPingInterval is unset.
STREAMLIT_PING_S = 30
MARKER = "FLDA_SERVE_RUN"  # in every process's environment: the run folder it belongs to


class Settings:
    """What the environment asks for (serve.sh's variables)."""

    def __init__(self, env=os.environ):
        port, processes = env.get("PORT", "8600"), env.get("PROCESSES", str(os.cpu_count() or 1))
        if not (port.isdigit() and 0 < int(port) < 65536 and processes.isdigit() and int(processes) > 0):
            sys.exit("serve.sh: PORT must be a port number and PROCESSES a whole number from 1")
        self.port, self.processes = int(port), int(processes)
        self.address = env.get("ADDRESS", "127.0.0.1")
        self.nginx = env.get("NGINX", "/usr/sbin/nginx")
        self.supervisord = env.get("SUPERVISORD") or shutil.which("supervisord") or "/usr/bin/supervisord"
        self.streamlit_args = env.get("STREAMLIT_ARGS", "")
        tmp = env.get("TMPDIR", "/tmp")
        self.run_dir = Path(env.get("RUN_DIR") or f"{tmp}/flda-serve-{os.getuid()}-{self.port}")


def log(*parts):
    """One line on stderr; after a hang-up (the terminal gone) into the run folder's log."""
    line = "serve.sh: " + " ".join(str(p) for p in parts) + "\n"
    try:
        sys.stderr.write(line)
        sys.stderr.flush()
    except OSError:
        fallback = os.environ.get(MARKER)
        if fallback:
            with open(Path(fallback, "serve.log"), "a") as out:
                out.write(line)


# ---------------------------------------------------------------- limits and configuration


def raise_open_files(wanted=NOFILE_WANTED):
    """Raise this process's soft limit of open files (inherited by supervisord, nginx and
    every Streamlit process) to ``wanted`` or the hard limit (which only root may raise);
    returns the new soft limit."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, wanted))
            return wanted
        except (ValueError, OSError):
            pass
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if target > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
    return max(soft, target)


def worker_connections(nofile):
    """nginx's connections for ``nofile`` open files (a few kept for its logs and sockets)."""
    return max(64, min(WORKER_CONNECTIONS_MAX, nofile - 32))


def app_config(path=ROOT / ".streamlit" / "config.toml"):
    try:
        return tomllib.loads(path.read_text())
    except FileNotFoundError:
        return {}


def websocket_timeout(config, env=os.environ):
    """Seconds nginx keeps a silent websocket: twice Streamlit's ping interval."""
    ping = env.get("STREAMLIT_SERVER_WEBSOCKET_PING_INTERVAL") or config.get("server", {}).get(
        "websocketPingInterval", STREAMLIT_PING_S
    )
    return 2 * int(ping)


def nginx_conf(run_dir, listen, ports, nofile, config, root_user=False):
    """nginx.conf's text: one upstream per process (that process first, the others as
    backups) and ``flda_any`` for a browser without a valid cookie; the cookie holds the
    answering process's index p1..pN, never an address."""
    server = "server 127.0.0.1:{port} max_fails=1 fail_timeout=5s{backup};"
    upstreams, cookie_map, answered_map = [], [], []
    for i, port in enumerate(ports, 1):
        lines = [server.format(port=port, backup="")]
        lines += [server.format(port=p, backup=" backup") for p in ports if p != port]
        body = "".join(f"        {x}\n" for x in lines)
        upstreams.append(f"    upstream flda_p{i} {{\n{body}        keepalive 16;\n    }}")
        cookie_map.append(f"        p{i} flda_p{i};")
        answered_map.append(f"        ~127\\.0\\.0\\.1:{port}$ p{i};")
    body = "".join(f"        {server.format(port=p, backup='')}\n" for p in ports)
    upstreams.append(f"    upstream flda_any {{\n{body}        keepalive 16;\n    }}")
    max_mb = int(config.get("server", {}).get("maxUploadSize", 200)) + 1
    fields = {
        "RUN_DIR": str(run_dir),
        "LISTEN": listen,
        "MAX_BODY_MB": str(max_mb),
        "USER_LINE": "user root;" if root_user else "",  # workers keep the temp folders' owner
        "NOFILE": str(nofile),
        "WORKER_CONNECTIONS": str(worker_connections(nofile)),
        "WEBSOCKET_S": str(websocket_timeout(config)),
        "UPSTREAMS": "\n".join(upstreams),
        "COOKIE_MAP": "\n".join(cookie_map),
        "ANSWERED_MAP": "\n".join(answered_map),
    }
    text = TEMPLATE.read_text()
    for name, value in fields.items():
        text = text.replace(f"@{name}@", value)
    return text


def _program(name, command, run_dir, startsecs, env=""):
    return (
        f"[program:{name}]\ncommand={command.replace('%', '%%')}\ndirectory={ROOT}\n"
        f"autostart=true\nautorestart=true\nstartsecs={startsecs}\nstartretries={STARTRETRIES}\n"
        "stopsignal=TERM\nstopwaitsecs=15\nstopasgroup=true\nkillasgroup=true\n"
        f"redirect_stderr=true\nstdout_logfile={run_dir}/{name}.log\n"
        "stdout_logfile_maxbytes=20MB\nstdout_logfile_backups=2\n" + (f"environment={env}\n" if env else "")
    )


def supervisord_conf(settings, ports, nofile, python=sys.executable):
    """supervisord.conf's text: the Streamlit processes and nginx (through ``nginx-exec``,
    which first ends any nginx process a killed master left in this run)."""
    run_dir, q = settings.run_dir, shlex.quote
    sections = [
        f"[supervisord]\nlogfile={run_dir}/supervisord.log\npidfile={run_dir}/supervisord.pid\n"
        f"childlogdir={run_dir}\nloglevel=info\nminfds={nofile}\n"
        + ("user=root\n" if os.geteuid() == 0 else ""),
        f"[unix_http_server]\nfile={run_dir}/supervisor.sock\nchmod=0700\n",
        "[rpcinterface:supervisor]\n"
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface\n",
        f"[supervisorctl]\nserverurl=unix://{run_dir}/supervisor.sock\n",
    ]
    for i, port in enumerate(ports, 1):
        command = (
            f"{q(python)} -m streamlit run app.py --server.headless true --server.address 127.0.0.1 "
            f"--server.port {port} --server.runOnSave false --server.fileWatcherType none "
            f"--browser.gatherUsageStats false {settings.streamlit_args}"
        )
        # behind nginx: the class's routes read the client's address from X-Real-IP
        env = f'FLDA_SERVER_PROCESSES="{len(ports)}",FLDA_BEHIND_PROXY="1"'
        # A process counts as started once it has lived 10 s (its start-up takes 4-10 s).
        sections.append(_program(f"streamlit-{i}", command, run_dir, 10, env))
    nginx = (
        f"{q(python)} {q(str(Path(__file__).resolve()))} nginx-exec {q(settings.nginx)} -p {q(str(run_dir))} "
        f"-e {q(f'{run_dir}/error.log')} -c {q(f'{run_dir}/nginx.conf')} -g 'daemon off;'"
    )
    sections.append(_program("nginx", nginx, run_dir, 2))
    return "\n".join(sections)


def free_ports(n):
    """``n`` free loopback ports, all bound at once (no port twice)."""
    sockets = [socket.socket() for _ in range(n)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


# ---------------------------------------------------------------- processes of a run


def _stat(pid):
    """(parent, session) of a process, or None once it is gone (zombies count as gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    return None if fields[0] == "Z" else (int(fields[1]), int(fields[3]))


def _belongs(pid, run_dir, nginx):
    """A process of this run: the run folder in its environment, or nginx (whose title
    overwrites its environment) in the run's session."""
    try:
        if os.stat(f"/proc/{pid}").st_uid != os.getuid():
            return False
        if os.path.realpath(f"/proc/{pid}/exe") == os.path.realpath(nginx):
            return True
        return f"{MARKER}={run_dir}".encode() in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")
    except OSError:
        return False


def session_processes(session, run_dir, nginx):
    """PIDs of this run's processes in ``session`` (supervisord's), but this one's."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and int(entry) != os.getpid():
            stat = _stat(int(entry))
            if stat and stat[1] == session and _belongs(int(entry), run_dir, nginx):
                found.append(int(entry))
    return found


def stop_processes(pids, wait_s=5.0):
    """SIGCONT (a stopped process cannot end) and SIGTERM, then SIGKILL what is left."""
    for sig in (signal.SIGCONT, signal.SIGTERM):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
    deadline = time.monotonic() + wait_s
    while any(_stat(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    for pid in pids:
        if _stat(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _boot_id():
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def stop_session(run_dir, nginx):
    """Stop whatever the session recorded in ``run_dir/session`` still runs; returns how
    many processes that was (0 when the record is of an earlier boot)."""
    try:
        session, boot = (run_dir / "session").read_text().split()
    except (OSError, ValueError):
        return 0
    if boot != _boot_id():
        return 0
    pids = session_processes(int(session), run_dir, nginx)
    stop_processes(pids)
    return len(pids)


def _serve_pid(run_dir):
    """The ``serve.py run`` of this port if one is running, else None."""
    try:
        pid = int((run_dir / "serve.pid").read_text())
        alive = b"serve.py" in Path(f"/proc/{pid}/cmdline").read_bytes() and _stat(pid) is not None
    except (OSError, ValueError):
        return None
    return pid if alive and pid != os.getpid() else None


def prepare_run_dir(run_dir):
    """The run folder, made private; refused if someone else owns it."""
    run_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    info = os.lstat(run_dir)
    if run_dir.is_symlink() or info.st_uid != os.getuid() or info.st_mode & 0o022:
        sys.exit(f"serve.sh: {run_dir} is not a private folder of this user; set RUN_DIR")
    return run_dir


# ---------------------------------------------------------------- supervisord


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=5)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


class _UnixTransport(xmlrpc.client.Transport):
    def __init__(self, path):
        super().__init__()
        self.path = path

    def make_connection(self, host):
        return _UnixConnection(self.path)


def supervisor_rpc(run_dir):
    """supervisord's XML-RPC interface on the run folder's socket."""
    transport = _UnixTransport(str(run_dir / "supervisor.sock"))
    return xmlrpc.client.ServerProxy("http://localhost/RPC2", transport=transport).supervisor


def programs(run_dir):
    """``{name: (state, pid)}`` of supervisord's programs, or None if it does not answer."""
    try:
        return {p["name"]: (p["statename"], p["pid"]) for p in supervisor_rpc(run_dir).getAllProcessInfo()}
    except (OSError, xmlrpc.client.Error, http.client.HTTPException):
        return None


def answers_health(port, timeout=HEALTH_TIMEOUT_S):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        connection.request("GET", "/_stcore/health")
        return connection.getresponse().status == 200
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


class Watchdog:
    """Kills a Streamlit process whose health check stops answering (supervisord, which
    only sees processes end, then restarts it), starts again a program supervisord
    gave up on (FATAL), with a back-off, and hurries the restart of one that ended
    (:meth:`nudge`)."""

    def __init__(self, run_dir, ports):
        self.run_dir, self.ports = run_dir, ports
        self.seen = {}  # program -> [pid, when started, when it last answered or None]
        self.fatal = {}  # program -> [times started again, when next]
        self.states = {}  # program -> (state, pid), as supervisord last said

    def nudge(self):
        """supervisord notes a process's end in one turn of its loop and starts it again
        in the next, a second later unless a request wakes it (1-2 s of every restart):
        while a program's process has ended or is not started again yet, ask for the
        states (serve.py calls this every 0.1 s)."""
        if any(s == "EXITED" or (pid and _stat(pid) is None) for s, pid in self.states.values()):
            self.states = programs(self.run_dir) or self.states

    def check(self, now=None):
        states = self.states = programs(self.run_dir)
        if states is None:
            self.states = {}
            return
        now = time.monotonic() if now is None else now
        self._restart_fatal(states, now)
        for i, port in enumerate(self.ports, 1):
            name = f"streamlit-{i}"
            state, pid = states.get(name, ("", 0))
            if state not in ("STARTING", "RUNNING"):
                continue
            seen = self.seen.get(name)
            if seen is None or seen[0] != pid:
                seen = self.seen[name] = [pid, now, None]
            if answers_health(port):
                seen[2] = now
                self.fatal.pop(name, None)
            elif now - (seen[2] or seen[1]) > (HUNG_S if seen[2] else START_S):
                quiet = now - (seen[2] or seen[1])
                log(f"watchdog: {name} (pid {pid}) answered no health check for {quiet:.0f} s: killed")
                try:
                    os.kill(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                del self.seen[name]

    def _restart_fatal(self, states, now):
        for name, (state, _) in states.items():
            if state == "RUNNING" and name == "nginx":
                self.fatal.pop(name, None)
            if state != "FATAL":
                continue
            count, when = self.fatal.setdefault(name, [0, now + FATAL_BACKOFF_S[0]])
            if now >= when:
                log(f"{name} failed to start {STARTRETRIES + 1} times in a row: starting it again")
                try:
                    supervisor_rpc(self.run_dir).startProcess(name, False)
                except (OSError, xmlrpc.client.Error, http.client.HTTPException):
                    pass
                self.fatal[name] = [
                    count + 1,
                    now + FATAL_BACKOFF_S[min(count + 1, len(FATAL_BACKOFF_S) - 1)],
                ]


# ---------------------------------------------------------------- run, start, stop


def _die_with_parent():
    """supervisord gets SIGTERM (and stops its programs) when this process dies."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


class Run:
    """``serve.sh`` in the foreground: supervisord, its watchdog, and a clean stop."""

    def __init__(self, settings):
        self.settings, self.stop = settings, threading.Event()
        self.supervisord = None
        for program in (settings.nginx, settings.supervisord):
            if not os.access(program, os.X_OK):
                sys.exit(f"serve.sh: no {program} (apt-get install nginx supervisor)")

    def main(self):
        s, run_dir = self.settings, prepare_run_dir(self.settings.run_dir)
        other = _serve_pid(run_dir)
        if other:
            sys.exit(f"serve.sh: already serving port {s.port} (pid {other}); bash deploy/serve.sh stop")
        left = stop_session(run_dir, s.nginx)
        if left:
            log(f"stopped {left} processes an earlier run on port {s.port} left behind")
        (run_dir / "serve.pid").write_text(str(os.getpid()))
        os.environ[MARKER] = str(run_dir)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, lambda *_: self.stop.set())
        signal.signal(signal.SIGHUP, signal.SIG_IGN)  # a closed terminal leaves the class up
        nofile = raise_open_files()
        ports = free_ports(s.processes)
        config, root = app_config(), os.geteuid() == 0
        (run_dir / "nginx.conf").write_text(
            nginx_conf(run_dir, f"{s.address}:{s.port}", ports, nofile, config, root)
        )
        (run_dir / "supervisord.conf").write_text(supervisord_conf(s, ports, nofile))
        connections = worker_connections(nofile)
        log(f"open files: {nofile} for nginx ({connections} connections) and for every process")
        if nofile < NOFILE_WARN:
            log(
                f"warning: the hard limit of open files is {nofile} (ulimit -Hn): about {connections // 2} "
                "students can wait at once; raise it (LimitNOFILE= in a systemd unit, nofile in "
                "/etc/security/limits.conf)"
            )
        try:
            served = self._supervise(ports)
        finally:
            self._stop_all()
            (run_dir / "serve.pid").unlink(missing_ok=True)
        return 0 if served else 1

    def _start_supervisord(self):
        run_dir = self.settings.run_dir
        self.supervisord = subprocess.Popen(
            [self.settings.supervisord, "-n", "-c", str(run_dir / "supervisord.conf")],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
            preexec_fn=_die_with_parent,
        )
        (run_dir / "session").write_text(f"{self.supervisord.pid} {_boot_id()}\n")
        log(f"supervisord (supervisor pid {self.supervisord.pid}), configuration and logs in {run_dir}")

    def _announce(self, pending, watchdog):
        """Print each process (in order) once it answers; then nginx.  Returns those left."""
        s = self.settings
        while pending and answers_health(pending[0][1], timeout=1):
            i, port = pending.pop(0)
            pid = (programs(s.run_dir) or {}).get(f"streamlit-{i}", ("", 0))[1]
            watchdog.seen[f"streamlit-{i}"] = [pid, time.monotonic(), time.monotonic()]  # it answered
            log(f"Streamlit process {i} (pid {pid}) on 127.0.0.1:{port}, log {s.run_dir}/streamlit-{i}.log")
            if not pending:
                nginx = (programs(s.run_dir) or {}).get("nginx", ("", 0))[1]
                log(
                    f"nginx (pid {nginx}) on http://{s.address}:{s.port} -> {s.processes} Streamlit processes"
                )
        return pending

    def _supervise(self, ports):
        """supervisord and the watchdog until a stop; supervisord started again (with a
        back-off) whenever it ends.  Returns False if the first supervisord ended before
        serving (a configuration problem: its log says which)."""
        served, failures = False, 0
        while not self.stop.is_set():
            self._start_supervisord()
            watchdog, checked = Watchdog(self.settings.run_dir, ports), 0.0
            pending = list(enumerate(ports, 1))  # processes not yet answering
            while not self.stop.wait(0.1) and self.supervisord.poll() is None:
                watchdog.nudge()
                pending = self._announce(pending, watchdog) if pending else pending
                served = served or not pending
                if time.monotonic() - checked >= CHECK_S:
                    watchdog.check()
                    checked = time.monotonic()
                if not pending:
                    failures = 0
            if self.stop.is_set():
                return True
            left = stop_session(self.settings.run_dir, self.settings.nginx)
            if not served:
                log(f"supervisord ended before serving; see {self.settings.run_dir}/supervisord.log")
                return False
            wait = SUPERVISOR_BACKOFF_S[min(failures, len(SUPERVISOR_BACKOFF_S) - 1)]
            log(
                f"supervisord ended (status {self.supervisord.returncode}); stopped the {left} processes "
                f"it left; starting everything again in {wait:.0f} s"
            )
            failures += 1
            self.stop.wait(wait)
        return True

    def _stop_all(self):
        s = self.settings
        if self.supervisord is not None and self.supervisord.poll() is None:
            for pid in session_processes(self.supervisord.pid, s.run_dir, s.nginx):
                os.kill(pid, signal.SIGCONT)  # a stopped process cannot end
            self.supervisord.terminate()  # it stops every program (SIGTERM, SIGKILL after 15 s)
            try:
                self.supervisord.wait(40)
            except subprocess.TimeoutExpired:
                self.supervisord.kill()
        left = stop_session(s.run_dir, s.nginx)
        extra = f"; {left} left behind killed" if left else ""
        log(f"stopped nginx and {s.processes} Streamlit processes (logs in {s.run_dir}){extra}")


def start(settings):
    """``serve.sh start``: ``run`` detached from the terminal, output in ``serve.log``;
    returns once it serves (0) or ended (1)."""
    run_dir = prepare_run_dir(settings.run_dir)
    other = _serve_pid(run_dir)
    if other:
        sys.exit(f"serve.sh: already serving port {settings.port} (pid {other})")
    out = run_dir / "serve.log"
    with open(out, "a") as log_file:
        offset = log_file.tell()
        child = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), "run"],
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    while child.poll() is None and "-> " not in out.read_text()[offset:]:
        time.sleep(0.2)
    sys.stderr.write(out.read_text()[offset:])
    if child.poll() is not None:
        return 1
    log(f"serving in the background (pid {child.pid}); stop: PORT={settings.port} bash deploy/serve.sh stop")
    return 0


def stop(settings):
    """``serve.sh stop``: SIGTERM to this port's run and wait; then whatever a crashed run left."""
    run_dir, pid = settings.run_dir, _serve_pid(settings.run_dir)
    if pid:
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 60
        while _stat(pid) and time.monotonic() < deadline:
            time.sleep(0.2)
    left = stop_session(run_dir, settings.nginx) if run_dir.is_dir() else 0
    log(f"port {settings.port}: " + ("stopped" if pid or left else "nothing was running"))
    return 0


def status(settings):
    states = programs(settings.run_dir)
    if states is None:
        log(f"port {settings.port}: supervisord does not answer")
        return 1
    for name, (state, pid) in sorted(states.items()):
        print(f"{name:14} {state:9} pid {pid}")
    return 0


def nginx_exec(argv):
    """supervisord's nginx: first end any nginx a killed master left serving in this
    session (it holds the port), then become nginx."""
    nginx = os.path.realpath(argv[0])
    found = session_processes(os.getsid(0), "", nginx)
    stop_processes([p for p in found if os.path.realpath(f"/proc/{p}/exe") == nginx], wait_s=3)
    os.execv(argv[0], argv)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "nginx-exec":
        return nginx_exec(argv[1:])
    parser = argparse.ArgumentParser(prog="serve.sh", description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="?", default="run", choices=("run", "start", "stop", "status"))
    command = parser.parse_args(argv).command
    settings = Settings()
    if command == "run":
        return Run(settings).main()
    return {"start": start, "stop": stop, "status": status}[command](settings)


if __name__ == "__main__":
    sys.exit(main())
