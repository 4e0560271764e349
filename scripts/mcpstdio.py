"""A minimal MCP client over stdio for the measuring scripts (mcp-bench.py,
mcp-eval.py): newline-delimited JSON-RPC, one request at a time, the
server's stderr discarded."""
import json, subprocess, time


def initialize_params(client):
    """The initialize request's params for a client named client."""
    return {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": client, "version": "0"}}


def session(args, who, env=None, cwd=None):
    """Starts the server args (in the environment env and the folder cwd,
    default ours); returns the process, call(method, params) -> (result,
    answer size in bytes), and notify(method). After a call, call.received
    is the time.perf_counter() at which its answer's line had been read,
    before this client decoded it. Errors exit with a message prefixed by
    who."""
    p = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, bufsize=1, env=env, cwd=cwd)
    state = {"id": 0}

    def call(method, params=None):
        state["id"] += 1
        msg = {"jsonrpc": "2.0", "id": state["id"], "method": method}
        if params is not None:
            msg["params"] = params
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            received = time.perf_counter()
            if not line:
                raise SystemExit(f"{who}: {args[0]} closed stdout during {method}")
            m = json.loads(line)
            if m.get("id") == state["id"]:
                if "error" in m:
                    raise SystemExit(f"{who}: {method}: {m['error']}")
                call.received = received
                return m["result"], len(line.encode())

    def notify(method):
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        p.stdin.flush()

    return p, call, notify


def memory(pid):
    """VmRSS and VmHWM (the peak) of a running process, in MiB (Linux)."""
    out = {}
    with open(f"/proc/{pid}/status") as fh:
        for line in fh:
            k, _, v = line.partition(":")
            if k in ("VmRSS", "VmHWM"):
                out[k] = int(v.split()[0]) / 1024
    return out
