#!/usr/bin/env python3
"""Chart of the end-to-end ratios (MCP stdio, MCP Streamable HTTP, plain HTTP), from the saved bench outputs.

    python3 scripts/e2e_chart.py                 # benchmarks/e2e.json + benchmarks/e2e.png
    python3 scripts/e2e_chart.py --check         # also compare with the ratio tables of BENCHMARKS.md

Reads what `cargo bench -j2 -p envelope-bench --bench {mcp_stdio,mcp_http,plain_http}` printed, as
saved under benchmarks/: `<bench>_{current,multi}.txt` (after) and, for before, `mcp_*_<flavour>_before.txt`
and `plain_http_<flavour>_e2e.txt` (the plain HTTP run before the sync-body pool; BENCHMARKS.md's
"Before" table cites it). Each file's summary lines

    envelope-async / rmcp: calls/s 1.60x (rounds 1.04x to 2.12x), server CPU per call 0.60x, p50 latency 0.63x

give, per cell (runtime flavour x body sync/async/inline x valid/refused x connections x stdio
transport), the median over the rounds of envelope's calls/s over the reference's in the same round
(with the rounds' lowest and highest), and the same for server CPU per call and p50 latency; the
server tables above them give each server's median CPU µs per call.

Writes `<out>/e2e.json` (every cell, after and before, with the file and line it came from) and,
when matplotlib is importable, `<out>/e2e.png`: one row per transport, calls/s ratio (left) and
CPU-per-call ratio (right) on log scales, before as grey bars beside after, the targets as dashed
lines (MCP: calls/s at least 1.1x, CPU at most 0.9x; plain HTTP: calls/s at least 0.95x).

Exits non-zero, naming the file and line, when a file is missing or does not parse as expected.
"""

import argparse
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
FLAVOURS = {"current": "current-thread", "multi": "multi-thread"}
TARGETS = {
    "mcp_stdio": {"calls": 1.1, "cpu": 0.9},
    "mcp_http": {"calls": 1.1, "cpu": 0.9},
    "plain_http": {"calls": 0.95, "cpu": None},
}
TITLES = {
    "mcp_stdio": "MCP stdio, envelope / rmcp",
    "mcp_http": "MCP Streamable HTTP, envelope / rmcp",
    "plain_http": "Plain HTTP (16 connections), envelope / axum",
}
HEADERS = {"mcp_stdio": "MCP stdio", "mcp_http": "MCP Streamable HTTP", "plain_http": "Plain HTTP"}
BEFORE_SUFFIX = {"mcp_stdio": "_before", "mcp_http": "_before", "plain_http": "_e2e"}
# The sections each output must hold, and the envelope servers each section must compare.
SECTIONS = {
    "mcp_stdio": [("valid", None), ("refused", None)],
    "mcp_http": [("valid", 1), ("valid", 16), ("refused", 1), ("refused", 16)],
    "plain_http": [("valid", 16), ("refused", 16)],
}
SERVERS = {
    "mcp_stdio": ["envelope", "envelope-async", "envelope-pipes", "envelope-async-pipes"],
    "mcp_http": ["envelope", "envelope-async"],
    "plain_http": ["envelope", "envelope-async"],  # envelope-inline: after only
}
BODY = {
    "envelope": "sync",
    "envelope-async": "async",
    "envelope-inline": "sync, inline",
    "envelope vs axum-blocking": "sync vs axum-blocking",
}
# The reference of each bench's main cells; a ratio to another is a cell of its own.
MAIN_REFERENCE = {"rmcp", "rmcp-pipes", "axum"}
LABEL_BOX = {"facecolor": "white", "edgecolor": "none", "alpha": 0.75, "pad": 0.4}
BODY_COLORS = {"sync": "#4c72b0", "async": "#55a868", "sync, inline": "#dd8452", "sync vs axum-blocking": "#8172b3"}

NUM = r"([0-9]+(?:\.[0-9]+)?)"
RE_HEADER = re.compile(r"^(MCP stdio|MCP Streamable HTTP|Plain HTTP)\b.*?, (current-thread|multi-thread) runtime(?:, protocol [0-9-]+)?: (.*?(\d+) round\(s\).*)$")
RE_SECTION = re.compile(r"^## (valid|refused) calls(?:, (\d+) connection(?:s|\(s\)))?\s*$")
RE_RATIO = re.compile(
    rf"^(\S+) / (\S+): calls/s {NUM}x \(rounds {NUM}x to {NUM}x\), server CPU per call {NUM}x, p50 latency {NUM}x"
)
RE_LOAD = re.compile(r"load average(?: at (?:start|the end))?:? ([0-9.]+),? ([0-9.]+),? ([0-9.]+)")


class ParseError(Exception):
    pass


def fail(path, lineno, msg):
    raise ParseError(f"{path}:{lineno}: {msg}" if lineno else f"{path}: {msg}")


def parse(path, bench, flavour):
    """One saved bench output -> {"header", "rounds", "loads", "cells": [...]}, or ParseError."""
    rel = path.relative_to(REPO) if path.is_relative_to(REPO) else path
    if not path.is_file():
        fail(rel, 0, "missing")
    lines = path.read_text(encoding="utf-8").splitlines()
    header = None
    section = None
    table_cols = None
    servers = {}  # (section) -> {server: row dict}
    ratios = {}  # (section) -> {server: ratio dict}
    loads = []
    for n, line in enumerate(lines, 1):
        for m in RE_LOAD.finditer(line):
            loads.append(float(m.group(1)))
        if header is None:
            m = RE_HEADER.match(line)
            if m:
                if m.group(1) != HEADERS[bench]:
                    fail(rel, n, f"a {m.group(1)!r} output where {HEADERS[bench]!r} was expected")
                if m.group(2) != FLAVOURS[flavour]:
                    fail(rel, n, f"{m.group(2)} runtime in a file named for {FLAVOURS[flavour]}")
                header = {"line": n, "text": line.strip(), "rounds": int(m.group(4))}
            continue
        if line.startswith("## "):
            m = RE_SECTION.match(line)
            if not m:
                fail(rel, n, f"unknown section heading {line!r}")
            section = (m.group(1), int(m.group(2)) if m.group(2) else None)
            if section in servers:
                fail(rel, n, f"section {line!r} appears twice")
            servers[section], ratios[section], table_cols = {}, {}, None
            continue
        if section is None:
            continue
        if line.startswith("| server |"):
            table_cols = [c.strip() for c in line.strip().strip("|").split("|")]
            continue
        if line.startswith("|---"):
            continue
        if line.startswith("| "):
            if table_cols is None:
                fail(rel, n, "table row without a header row")
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) != len(table_cols):
                fail(rel, n, f"{len(cells)} columns where the header has {len(table_cols)}")
            row = dict(zip(table_cols, cells))
            cpu_col = next((c for c in table_cols if c.startswith("server CPU")), None)
            if cpu_col is None:
                fail(rel, n, "no 'server CPU' column in the table")
            try:
                servers[section][row["server"]] = {
                    "calls_per_s": float(row[table_cols[1]]),
                    "cpu_us_per_call": float(row[cpu_col]),
                    "line": n,
                }
            except ValueError as e:
                fail(rel, n, f"not a number in a server row: {e}")
            continue
        if ": calls/s " in line:
            m = RE_RATIO.match(line)
            if not m:
                fail(rel, n, f"ratio line does not parse: {line[:100]!r}")
            server, reference = m.group(1), m.group(2)
            # A second reference for the same server (plain HTTP's sync tool against
            # `axum-blocking`, the axum handler that also keeps its work off the runtime) is a
            # cell of its own.
            if reference not in MAIN_REFERENCE:
                server = f"{server} vs {reference}"
            ratios[section][server] = {
                "reference": reference,
                "calls_ratio": float(m.group(3)),
                "calls_ratio_rounds_min": float(m.group(4)),
                "calls_ratio_rounds_max": float(m.group(5)),
                "cpu_ratio": float(m.group(6)),
                "p50_ratio": float(m.group(7)),
                "line": n,
            }
    if header is None:
        fail(rel, 0, f"no '{HEADERS[bench]} ..., {FLAVOURS[flavour]} runtime: ... N round(s)' header line")
    want = SECTIONS[bench]
    if sorted(servers, key=str) != sorted(want, key=str):
        fail(rel, 0, f"sections {sorted(servers, key=str)} where {want} were expected")
    cells = []
    for section in want:
        workload, conns = section
        for server in SERVERS[bench]:
            if server not in ratios[section]:
                fail(rel, 0, f"no '{server} / ...' ratio line under '## {workload} calls'"
                     + (f", {conns} connection(s)" if conns else ""))
        for server, r in ratios[section].items():
            reference = r["reference"]
            for s in (server.split(" vs ")[0], reference):
                if s not in servers[section]:
                    fail(rel, r["line"], f"ratio names {s!r}, which has no row in the table above it")
            base = server.removesuffix("-pipes")
            if base not in BODY:
                fail(rel, r["line"], f"unknown server {server!r}")
            cell = {
                "bench": bench,
                "runtime": FLAVOURS[flavour],
                "body": BODY[base],
                "workload": workload,
                "connections": conns,
                "server": server,
                "reference": reference,
                **{k: v for k, v in r.items() if k not in ("reference", "line")},
                "cpu_us_per_call": servers[section][server.split(" vs ")[0]]["cpu_us_per_call"],
                "reference_cpu_us_per_call": servers[section][reference]["cpu_us_per_call"],
                "source": f"{rel}:{r['line']}",
            }
            if bench == "mcp_stdio":
                cell["io"] = "pipes" if server.endswith("-pipes") else "stdin/stdout"
            cells.append(cell)
    return {
        "file": str(rel),
        "header": header["text"],
        "rounds": header["rounds"],
        "load_average_1min": [min(loads), max(loads)] if loads else None,
        "cells": cells,
    }


def cell_key(c):
    return (c["bench"], c.get("io"), c["runtime"], c["body"], c["workload"], c["connections"])


def load_all(src):
    runs, cells = [], []
    for bench in TARGETS:
        for flavour in FLAVOURS:
            after = parse(src / f"{bench}_{flavour}.txt", bench, flavour)
            before = parse(src / f"{bench}_{flavour}{BEFORE_SUFFIX[bench]}.txt", bench, flavour)
            runs += [dict(after, cells=None, kind="after"), dict(before, cells=None, kind="before")]
            prior = {cell_key(c): c for c in before["cells"]}
            for c in after["cells"]:
                b = prior.get(cell_key(c))
                c["before"] = None if b is None else {
                    k: b[k] for k in ("calls_ratio", "calls_ratio_rounds_min", "calls_ratio_rounds_max", "cpu_ratio",
                                      "p50_ratio", "cpu_us_per_call", "reference_cpu_us_per_call", "source")
                }
                cells.append(c)
    for r in runs:
        del r["cells"]
    return runs, cells


def check_doc(doc, cells):
    """Compare the ratio tables of BENCHMARKS.md's end-to-end sections with the parsed cells.

    Returns a list of disagreements (strings); tables it cannot place are reported too."""
    text = doc.read_text(encoding="utf-8").splitlines()
    index = {}
    for c in cells:
        index[cell_key(c)] = c
    problems, checked = [], 0
    context = None
    cols = None
    for n, line in enumerate(text, 1):
        if line.startswith("## ") and "end to end" not in line:
            context = None
        # A later subsection (a re-measurement from other files) is not one of the charted runs.
        if line.startswith("### "):
            context = None
        if line.startswith("**Over tokio's stdin/stdout**"):
            context = ("mcp_stdio", "stdin/stdout", "after+before")
        elif line.startswith("**Over `stdio_pipes()`**"):
            context = ("mcp_stdio", "pipes", "after+before")
        elif line.startswith("**MCP Streamable HTTP**"):
            context = ("mcp_http", None, "after")
        elif line.startswith("**Plain HTTP**"):
            context = ("plain_http", None, "before")
        elif line.startswith("After: main now"):
            context = ("plain_http", None, "after")
        if context is None or not line.startswith("| "):
            continue
        cells_ = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells_[0] == "runtime":
            cols = cells_
            continue
        if cells_[0] not in FLAVOURS.values() or cols is None:
            continue
        bench, io, kind = context
        runtime, body = cells_[0], cells_[1]
        for col, val in zip(cols[2:], cells_[2:]):
            m = re.match(r"(valid|refused)(?:, (\d+) conns?)?$", col)
            if not m:
                problems.append(f"BENCHMARKS.md:{n}: column {col!r} not understood")
                continue
            conns = int(m.group(2)) if m.group(2) else (16 if bench == "plain_http" else None)
            key = (bench, io, runtime, body, m.group(1), conns)
            c = index.get(key)
            if c is None:
                problems.append(f"BENCHMARKS.md:{n}: no parsed cell for {key}")
                continue
            nums = [float(x) for x in re.findall(r"([0-9]+\.[0-9]+)x", val)]
            after = [c["calls_ratio"], c["cpu_ratio"]] + ([c["p50_ratio"]] if bench == "mcp_stdio" else [])
            b = c["before"]
            before = None if b is None else [b["calls_ratio"], b["cpu_ratio"]] + (
                [b["p50_ratio"]] if bench == "mcp_stdio" else [])
            if kind == "after":
                want, src = after, c["source"]
            elif kind == "before":
                want, src = before, b and b["source"]
            else:
                want, src = after + (before or []), c["source"] + (f" and {b['source']}" if b else "")
            checked += 1
            if nums != want:
                problems.append(f"BENCHMARKS.md:{n}: {runtime}, {body}, {col}: table says {nums}, {src} says {want}")
    if checked == 0:
        problems.append("BENCHMARKS.md: no end-to-end ratio table found")
    return problems, checked


def draw(cells, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch
    from matplotlib.ticker import FixedLocator, NullLocator

    benches = list(TARGETS)
    fig, axes = plt.subplots(len(benches), 2, figsize=(17, 14.5))
    for row, bench in enumerate(benches):
        group = [c for c in cells if c["bench"] == bench]
        order = {"current-thread": 0, "multi-thread": 1, "stdin/stdout": 0, "pipes": 1, None: 0,
                 "valid": 0, "refused": 1, "sync": 0, "async": 1, "sync, inline": 2, "sync vs axum-blocking": 3}
        group.sort(key=lambda c: (order[c["runtime"]], order.get(c.get("io")), order[c["workload"]],
                                  c["connections"] or 0, order[c["body"]]))
        labels = []
        for c in group:
            parts = [c["body"].replace("sync, inline", "inline").replace("sync vs axum-blocking", "sync /\naxum-\nblocking"),
                     c["workload"]]
            if c["connections"] and bench == "mcp_http":
                parts.append(f"{c['connections']} conn")
            if bench == "mcp_stdio":
                parts.append("pipes" if c["io"] == "pipes" else "stdio")
            labels.append("\n".join(parts))
        xs = list(range(len(group)))
        split = sum(1 for c in group if c["runtime"] == "current-thread")
        for col, (metric, name) in enumerate((("calls", "calls/s ratio (higher is better)"),
                                              ("cpu", "server CPU per call ratio (lower is better)"))):
            ax = axes[row][col]
            key = f"{metric}_ratio"
            w = 0.4
            after = [c[key] for c in group]
            before = [c["before"][key] if c["before"] else None for c in group]
            ax.bar([x + w / 2 for x in xs], after, w, color=[BODY_COLORS[c["body"]] for c in group], zorder=2)
            bx = [x - w / 2 for x, b in zip(xs, before) if b is not None]
            ax.bar(bx, [b for b in before if b is not None], w, color="#c8c8c8", edgecolor="#8c8c8c", lw=0.5, zorder=2)
            if metric == "calls":
                lo = [a - c["calls_ratio_rounds_min"] for a, c in zip(after, group)]
                hi = [c["calls_ratio_rounds_max"] - a for a, c in zip(after, group)]
                ax.errorbar([x + w / 2 for x in xs], after, yerr=[lo, hi], fmt="none", ecolor="#333333",
                            elinewidth=0.7, capsize=1.5, zorder=3)
            for x, a, c in zip(xs, after, group):
                top = c["calls_ratio_rounds_max"] if metric == "calls" else a
                ax.annotate(f"{a:.2f}", (x + w / 2, top), xytext=(0, 2), textcoords="offset points", ha="center",
                            va="bottom", fontsize=6.5, rotation=90, zorder=4, bbox=LABEL_BOX)
            for x, b in zip(xs, before):
                if b is not None:
                    ax.annotate(f"{b:.2f}", (x - w / 2, b), xytext=(0, 2), textcoords="offset points", ha="center",
                                va="bottom", fontsize=6, rotation=90, color="#606060", zorder=4,
                                bbox=LABEL_BOX)
            target = TARGETS[bench][metric]
            if target is not None:
                ax.axhline(target, color="#c44e52", ls="--", lw=1.1, zorder=1)
                name += f"; target {'at least' if metric == 'calls' else 'at most'} {target:g}x"
            else:
                name += "; no target"
            ax.axhline(1.0, color="#555555", lw=0.7, zorder=1)
            ax.axvline(split - 0.5, color="#888888", lw=0.8, ls=":")
            ax.set_yscale("log")
            vals = [v for v in after + before if v is not None]
            if metric == "calls":
                vals += [c["calls_ratio_rounds_min"] for c in group] + [c["calls_ratio_rounds_max"] for c in group]
            lo_v, hi_v = min(vals + [target or 1.0]), max(vals + [target or 1.0])
            ax.set_ylim(lo_v / 1.35, hi_v * 2.3)
            ticks = [t for t in (0.1, 0.2, 0.3, 0.5, 0.7, 1, 1.5, 2, 3, 5, 8, 12, 16) if lo_v / 1.35 <= t <= hi_v * 2.3]
            ax.yaxis.set_major_locator(FixedLocator(ticks))
            ax.yaxis.set_minor_locator(NullLocator())
            ax.set_yticklabels([f"{t:g}x" for t in ticks], fontsize=8)
            ax.set_xticks(xs, labels, fontsize=6.5)
            ax.set_xlim(-0.7, len(group) - 0.3)
            ax.grid(axis="y", alpha=0.3, zorder=0)
            ax.text(-0.55, 0.98, "current-thread", transform=ax.get_xaxis_transform(),
                    fontsize=8.5, va="top", ha="left", style="italic")
            ax.text(split - 0.4, 0.98, "multi-thread", transform=ax.get_xaxis_transform(), fontsize=8.5,
                    va="top", ha="left", style="italic")
            ax.set_title(f"{TITLES[bench]}: {name}", fontsize=10)
    handles = [Patch(color=BODY_COLORS[b], label=f"after, {b} body") for b in BODY_COLORS]
    handles.append(Patch(facecolor="#c8c8c8", edgecolor="#8c8c8c", label="before (*_before.txt; plain HTTP: *_e2e.txt)"))
    handles.append(plt.Line2D([], [], color="#333333", lw=0.7, label="calls/s: rounds' lowest to highest ratio"))
    handles.append(plt.Line2D([], [], color="#c44e52", ls="--", lw=1.1, label="target (MCP: calls/s at least 1.1x, CPU at most 0.9x; plain HTTP: calls/s at least 0.95x)"))
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8.5, frameon=False)
    fig.suptitle("End to end, envelope over the reference in the same round, median over the rounds "
                 "(benchmarks/*.txt; shared 2-core machine under load)", fontsize=11)
    fig.tight_layout(rect=(0, 0.045, 1, 0.98))
    fig.savefig(out / "e2e.png", dpi=100)
    plt.close(fig)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--src", default=str(REPO / "benchmarks"), help="folder of the saved outputs (default benchmarks/)")
    p.add_argument("--out", default=str(REPO / "benchmarks"))
    p.add_argument("--check", action="store_true", help="compare with the ratio tables of BENCHMARKS.md; exit 1 on a difference")
    args = p.parse_args()
    try:
        runs, cells = load_all(Path(args.src).resolve())
    except ParseError as e:
        sys.exit(f"e2e_chart: {e}")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    data = {"generated_by": "scripts/e2e_chart.py", "targets": TARGETS, "runs": runs, "cells": cells}
    (out / "e2e.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"data: {out / 'e2e.json'} ({len(cells)} cells from {len(runs)} files)")
    status = 0
    if args.check:
        problems, checked = check_doc(REPO / "BENCHMARKS.md", cells)
        for msg in problems:
            print(msg, file=sys.stderr)
        print(f"BENCHMARKS.md: {checked} table cells checked, {len(problems)} disagreement(s)")
        status = 1 if problems else 0
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("matplotlib is not installed (pip install matplotlib): no chart drawn", file=sys.stderr)
        sys.exit(status or 0)
    draw(cells, out)
    print(f"chart: {out / 'e2e.png'}")
    sys.exit(status)


if __name__ == "__main__":
    main()
