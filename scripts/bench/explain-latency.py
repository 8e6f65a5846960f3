#!/usr/bin/env python3
# GET /explain latency over loopback: python3 scripts/bench/explain-latency.py PORT [N]
# (a running listserver on 127.0.0.1:PORT; N dev-sample requests over one kept-alive curl connection).
import json, subprocess, sys, urllib.parse, statistics
port, n = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1000
reqs = [json.loads(l) for l in open(__import__('os').path.join(__import__('os').path.dirname(__file__), '../../../shared/data/requests/dev-sample.jsonl'))][:n]
urls = ["http://127.0.0.1:%s/explain?%s" % (port, urllib.parse.urlencode({"url": r["url"], "page": r["source"], "type": r["type"]})) for r in reqs]
# warm-up: the first valid request loads the engine (503 until ready)
import time
for _ in range(600):
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{http_code}", urls[0]], capture_output=True, text=True).stdout
    if out == "200": break
    time.sleep(0.1)
# one curl process, one kept-alive connection, N requests; time_total per transfer
args = ["curl", "-s"]
for u in urls: args += ["-o", "/dev/null", "-w", "%{http_code} %{time_total}\n", u]
lines = subprocess.run(args, capture_output=True, text=True).stdout.split("\n")
codes = [l.split()[0] for l in lines if l]
times = sorted(float(l.split()[1]) * 1000 for l in lines if l)
print("explain over loopback: %d requests (dev-sample), statuses %s, p50 %.2f ms, p99 %.2f ms, max %.2f ms" % (
    len(times), sorted(set(codes)), times[len(times)//2], times[int(len(times)*0.99)-1], times[-1]))
