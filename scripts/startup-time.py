#!/usr/bin/env python3
"""Times skills-mcp from process start to its tools/list answer over stdio.

usage: scripts/startup-time.py [-n RUNS] COMMAND [ARGS...]   (prints median, min, max in ms)
"""
import subprocess, time, json, sys, statistics
runs = 9
args = sys.argv[1:]
if args[:1] == ["-n"]:
    runs, args = int(args[1]), args[2:]
ts=[]
for i in range(runs):
    t0=time.perf_counter()
    p=subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    p.stdin.write(json.dumps({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}})+"\n")
    p.stdin.write(json.dumps({"jsonrpc":"2.0","method":"notifications/initialized"})+"\n")
    p.stdin.write(json.dumps({"jsonrpc":"2.0","id":2,"method":"tools/list"})+"\n"); p.stdin.flush()
    while True:
        line=p.stdout.readline()
        if '"id":2' in line: break
    ts.append((time.perf_counter()-t0)*1000)
    p.stdin.close(); p.wait()
print("median %.0f ms  min %.0f  max %.0f  (n=%d)" % (statistics.median(ts), min(ts), max(ts), len(ts)))
