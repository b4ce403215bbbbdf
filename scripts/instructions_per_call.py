#!/usr/bin/env python3
"""Instructions per call of the plain HTTP servers of `envelope-bench/benches/plain_http.rs`,
counted by callgrind: the steady figure where calls/s on a shared 2-core machine spread 30 %
between rounds.

    cargo bench -j2 -p envelope-bench --bench plain_http --no-run
    python3 scripts/instructions_per_call.py                      # every server, valid and refused
    python3 scripts/instructions_per_call.py --servers envelope-async axum --kinds valid --top 30

Each server runs under `valgrind --tool=callgrind` (the bench binary with `--serve <server>`)
and answers N and 3N calls (16 keep-alive connections from this script, raw sockets on
loopback, the bench's requests); the difference over 2N calls leaves out start-up. Printed: the
user-space instructions per call of each server, and with `--top K` the functions whose own
instructions per call differ most between the first server and the last (e.g. envelope-async
against axum). Kernel time (the same `recvfrom` and one write per call for every server here)
is not counted.
"""

import argparse
import collections
import glob
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

VALID = [
    b'{"hours_back":24,"group_by":"database"}',
    b'{"hours_back":720,"group_by":"query_hash","top":5}',
    b'{"hours_back":1,"group_by":"application","top":100}',
]
REFUSED = [
    b'{"hours_back":"24h","group_by":"database"}',
    b'{"hours_back":721,"group_by":"database"}',
    b'{"hours_back":24,"group_by":"databse"}',
]


def bench_binary():
    found = sorted(glob.glob("target/release/deps/plain_http-*"), key=os.path.getmtime)
    found = [f for f in found if os.access(f, os.X_OK) and not f.endswith(".d")]
    if not found:
        sys.exit("no bench binary: cargo bench -j2 -p envelope-bench --bench plain_http --no-run")
    return found[-1]


def drive(port, calls, connections, bodies):
    """Sends `calls` requests over `connections` keep-alive connections, each reply read whole."""
    requests = [
        b"POST /tools/get_top_queries HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/json\r\n"
        b"Content-Length: %d\r\n\r\n%s" % (port, len(b), b)
        for b in bodies
    ]
    answered = [0]
    lock = threading.Lock()

    def one(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        buf = b""
        for i in range(n):
            s.sendall(requests[i % len(requests)])
            while True:
                end = buf.find(b"\r\n\r\n")
                if end >= 0:
                    head = buf[:end].lower()
                    length = int(head.split(b"content-length:")[1].split(b"\r\n")[0])
                    if len(buf) >= end + 4 + length:
                        buf = buf[end + 4 + length :]
                        break
                chunk = s.recv(65536)
                if not chunk:
                    raise RuntimeError("the server closed the connection")
                buf += chunk
            with lock:
                answered[0] += 1
        s.close()

    threads = [threading.Thread(target=one, args=(calls // connections,)) for _ in range(connections)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return answered[0]


def run(binary, server, bodies, calls, out):
    """The callgrind output of `server` answering `calls` calls."""
    proc = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", binary, "--serve", server],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    port = int(proc.stdout.readline())
    answered = drive(port, calls, 16, bodies)
    if answered != calls // 16 * 16:
        sys.exit(f"{server}: {answered} replies of {calls}")
    proc.stdin.close()  # the server exits when its stdin closes
    proc.wait(timeout=120)
    return out


def own_costs(path):
    text = subprocess.run(
        ["callgrind_annotate", "--threshold=100", "--auto=no", path], capture_output=True, text=True
    ).stdout
    costs = collections.Counter()
    total = 0
    for line in text.splitlines():
        m = re.match(r"\s*([\d,]+)\s+\([^)]*\)\s+(.*)", line)
        if not m:
            continue
        n = int(m.group(1).replace(",", ""))
        if "PROGRAM TOTALS" in line:
            total = n
            continue
        name = re.sub(r"^[^:]*:", "", m.group(2), count=1).split(" [")[0]
        costs[name] += n
    return total, costs


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--servers", nargs="+", default=["envelope", "envelope-async", "envelope-inline", "axum"])
    ap.add_argument("--kinds", nargs="+", default=["valid", "refused"], choices=["valid", "refused"])
    ap.add_argument("--calls", type=int, default=1600, help="N: the runs answer N and 3N calls")
    ap.add_argument("--top", type=int, default=0, help="functions differing most, first server against last")
    args = ap.parse_args()
    binary = bench_binary()
    with tempfile.TemporaryDirectory() as tmp:
        for kind in args.kinds:
            bodies = VALID if kind == "valid" else REFUSED
            per_call = {}
            functions = {}
            for server in args.servers:
                runs = [run(binary, server, bodies, n, f"{tmp}/{server}.{kind}.{n}") for n in (args.calls, 3 * args.calls)]
                (t1, c1), (t3, c3) = own_costs(runs[0]), own_costs(runs[1])
                per_call[server] = (t3 - t1) / (2 * args.calls)
                functions[server] = {k: (c3[k] - c1[k]) / (2 * args.calls) for k in set(c1) | set(c3)}
            print(f"## {kind} calls: instructions per call (callgrind, user space)")
            base = per_call[args.servers[-1]]
            for server, n in per_call.items():
                print(f"{server:>16} {n:9.0f}  {n / base:5.2f}x {args.servers[-1]}")
            if args.top:
                a, b = functions[args.servers[0]], functions[args.servers[-1]]
                rows = sorted(((a.get(k, 0) - b.get(k, 0), k) for k in set(a) | set(b)), reverse=True)
                print(f"\nown instructions per call, {args.servers[0]} - {args.servers[-1]} (largest first):")
                for d, k in rows[: args.top]:
                    print(f"{d:8.0f} {a.get(k, 0):7.0f} {b.get(k, 0):7.0f}  {k[:140]}")
            print()


if __name__ == "__main__":
    main()
