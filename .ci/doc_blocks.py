#!/usr/bin/env python3
"""Runs every shell and Python block of README.md and docs/guide/*.md as a reader pastes it, so no
block can rot (the Rust blocks are compiled as doctests by `cargo test --workspace`, through
docs/blocks.rs).

    python3 .ci/doc_blocks.py [--list] [FILE:LINE ...]

A block runs when its fence's language is `sh`, `bash` or `python` and its info string does not
say `no_run` (kept for what takes hours or belongs to another step of `.ci/run`: a fuzzing run,
a benchmark, the test command itself). A `console` block is a transcript (prompts and output),
not run. Each block runs from the repository's root in a process group of its own: a shell block
with `bash -e -o pipefail` (a command that fails fails the block), a Python block with `python3`,
within `DOC_BLOCK_TIMEOUT` seconds (default 900). A block must stop what it starts: a process
of its group still running when it ends fails it (and is stopped). The example servers listen on
port 8080: a block is not started while something else listens there.

Needs what the blocks use: cargo, curl, python3 with the MCP Python SDK 2.x (`pip install
'mcp>=2,<3'`), Node.js with npx (the MCP Inspector). Exits 1 naming each block that failed.
"""

import glob
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FENCE = re.compile(r"^(\s*)```(.*)$")
RUN = {"sh": "sh", "bash": "sh", "python": "python"}


def blocks(path):
    """Every fenced block of a Markdown file: (line of its fence, info string, text)."""
    out, lines, i = [], open(path, encoding="utf-8").read().split("\n"), 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if m and m.group(2).strip():
            start, info, body = i + 1, m.group(2).strip(), []
            i += 1
            while i < len(lines) and not lines[i].strip().startswith("```"):
                body.append(lines[i])
                i += 1
            out.append((start, info, "\n".join(body) + "\n"))
        i += 1
    return out


def runnable(info):
    words = re.split(r"[\s,]+", info)
    return RUN.get(words[0]) if "no_run" not in words[1:] else None


def port_busy(port=8080):
    with socket.socket() as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def group_alive(pgid):
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


def stop_group(pgid):
    for sig in (signal.SIGTERM, signal.SIGKILL):
        if not group_alive(pgid):
            return
        try:
            os.killpg(pgid, sig)
        except ProcessLookupError:
            return
        for _ in range(50):
            if not group_alive(pgid):
                return
            time.sleep(0.1)


def run(kind, text, timeout):
    """Runs one block; answers (ok, what went wrong or '', its output)."""
    for _ in range(300):
        if not port_busy():
            break
        time.sleep(0.2)
    else:
        return False, "port 8080 is in use by something else", ""
    argv = ["bash", "-e", "-o", "pipefail", "-c", text] if kind == "sh" else [sys.executable, "-c", text]
    env = dict(os.environ, CARGO_TERM_COLOR="never")
    started = time.monotonic()
    # Output to a file, not a pipe: a server left running would hold a pipe open.
    with tempfile.TemporaryFile(mode="w+") as log:
        proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True, text=True)
        why = ""
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            why = f"did not end within {timeout} s"
        took = time.monotonic() - started
        # What the block started and did not stop (a background server left running); one it
        # stopped may take a moment to finish its graceful shutdown.
        for _ in range(100):
            if not group_alive(proc.pid):
                break
            time.sleep(0.1)
        if group_alive(proc.pid):
            stop_group(proc.pid)
            why = "; ".join(w for w in (why, "left processes running (a background server not stopped)") if w)
        proc.wait()
        if not why and proc.returncode != 0:
            why = f"exited {proc.returncode}"
        elif proc.returncode not in (0, None) and "exited" not in why:
            why += f"; exited {proc.returncode}"
        log.seek(0)
        output = log.read()
    return (not why), (why or f"{took:.1f} s"), output


def main():
    args = sys.argv[1:]
    listing = "--list" in args
    only = [a for a in args if a != "--list"]
    timeout = int(os.environ.get("DOC_BLOCK_TIMEOUT", "900"))
    files = ["README.md"] + sorted(glob.glob("docs/guide/*.md", root_dir=ROOT))
    failed, ran, skipped = [], 0, 0
    for rel in files:
        for line, info, text in blocks(os.path.join(ROOT, rel)):
            kind = runnable(info)
            where = f"{rel}:{line}"
            if kind is None:
                if info.split()[0] in RUN:
                    skipped += 1
                    if listing:
                        print(f"not run ({info}): {where}")
                continue
            if only and where not in only:
                continue
            if listing:
                print(f"{kind}: {where}")
                continue
            print(f"--- {where} ({kind})", flush=True)
            ok, why, output = run(kind, text, timeout)
            ran += 1
            if ok:
                print(f"ok: {where} ({why})", flush=True)
            else:
                failed.append(where)
                tail = "\n".join(output.rstrip().split("\n")[-40:])
                print(f"FAILED: {where}: {why}\n{tail}", flush=True)
    if not listing:
        print(f"{ran} blocks run, {len(failed)} failed; {skipped} marked no_run")
    if failed:
        print("FAILED blocks: " + ", ".join(failed))
        sys.exit(1)


main()
