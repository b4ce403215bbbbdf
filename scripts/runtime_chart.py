#!/usr/bin/env python3
"""Chart of the run-time ratios per variant, from the interleaved comparison (benches/compare.rs).

    cargo bench -j2 -p envelope-bench --bench compare      # writes target/bench-compare/compare.json
    python3 scripts/runtime_chart.py                        # benchmarks/runtime.json + runtime.png
    python3 scripts/runtime_chart.py --run                  # both steps

The comparison times, in one process and interleaved rounds, five variants reading the same JSON:
floor (serde into String fields, no checks), limit (serde + Rust enums + the checks as plain ifs),
validator 0.21, garde 0.23 and envelope (`Toolbox::call` / `Toolbox::call_json`), on tool A
(get_top_queries' three parameters), tool B (ten parameters) and tool C (a nested object). Each ratio is the median over the
rounds of the variant's time divided by its reference's time in the same round: `limit` on the
success paths, `floor` on the refusal path.

Copies the JSON to `<out>/runtime.json` and, when matplotlib is importable, draws
`<out>/runtime.png`: success ratios to limit (left), refusal ratios to floor (right), on log scales,
with the targets (1.3x limit; 10x floor) as dashed lines.
"""

import argparse
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VARIANTS = ["floor", "limit", "validator", "garde", "envelope"]
COLORS = {"floor": "#9e9e9e", "limit": "#616161", "validator": "#4c72b0", "garde": "#dd8452", "envelope": "#55a868"}
TOOLS = ("A", "B", "C")
PATH_LABEL = {"value": "from &Value", "str": "from &str"}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--input", default=str(REPO / "target" / "bench-compare" / "compare.json"))
    p.add_argument("--out", default=str(REPO / "benchmarks"))
    p.add_argument("--run", action="store_true", help="run `cargo bench -j2 -p envelope-bench --bench compare` first")
    args = p.parse_args()
    if args.run:
        subprocess.run(["cargo", "bench", "-j2", "-p", "envelope-bench", "--bench", "compare"], cwd=REPO, check=True)
    data = json.loads(Path(args.input).read_text())
    if data.get("quick") or data.get("profile") != "release":
        sys.exit(f"{args.input} is from a quick or debug run: run the full comparison (release) first")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "runtime.json").write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    print(f"data: {out / 'runtime.json'}")

    rows = {(r["tool"], r["path"], r["variant"]): r for r in data["rows"]}
    targets = data["targets"]
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart drawn", file=sys.stderr)
        return

    fig, (left, right) = plt.subplots(1, 2, figsize=(14, 5.2), gridspec_kw={"width_ratios": [2, 1.1]})
    width = 0.16

    # Success: each variant's time over limit's, per tool and path.
    groups = [(t, p) for t in TOOLS for p in ("value", "str")]
    for k, variant in enumerate(VARIANTS):
        xs = [g + (k - 2) * width for g in range(len(groups))]
        ys = [rows[t, p, variant]["ratio_to_limit"] for t, p in groups]
        left.bar(xs, ys, width, label=variant, color=COLORS[variant])
        for x, y in zip(xs, ys):
            left.annotate(f"{y:.1f}", (x, y), ha="center", va="bottom", fontsize=7)
    left.axhline(targets["success_ratio_to_limit"], color="#c44e52", ls="--", lw=1)
    left.text(0.99, targets["success_ratio_to_limit"], "target", color="#c44e52", va="bottom", ha="right", fontsize=8,
              transform=left.get_yaxis_transform())
    left.set_xticks(range(len(groups)), [f"{t}: success\n{PATH_LABEL[p]}" for t, p in groups], fontsize=8)
    left.set_yscale("log")
    left.set_ylabel("time / limit's time in the same round (median)")
    left.set_title("Success: ratio to limit (serde + enums + ifs)", fontsize=10)
    left.grid(axis="y", alpha=0.3, which="both")
    left.legend(fontsize=8)

    # Refusal: each variant's time (error rendered to text) over floor's on the same input.
    refusers = VARIANTS[1:]
    for k, variant in enumerate(refusers):
        xs = [g + (k - 1.5) * width for g in range(len(TOOLS))]
        rs = [rows[t, "refusal", variant] for t in TOOLS]
        ys = [r["ratio_to_floor"] for r in rs]
        right.bar(xs, ys, width, color=COLORS[variant])
        for x, y, r in zip(xs, ys, rs):
            allocs = r["allocs_per_call"] + r["reallocs_per_call"]
            right.annotate(f"{y:.0f}\n{allocs:.0f}a", (x, y), ha="center", va="bottom", fontsize=6.5)
    right.axhline(targets["refusal_ratio_to_floor"], color="#c44e52", ls="--", lw=1)
    right.text(0.99, targets["refusal_ratio_to_floor"], "target", color="#c44e52", va="bottom", ha="right", fontsize=8,
               transform=right.get_yaxis_transform())
    right.set_xticks(range(len(TOOLS)), [f"{t}: refusal from &str" for t in TOOLS], fontsize=8)
    right.set_yscale("log")
    right.margins(y=0.12)
    right.set_ylabel("time / floor's time in the same round (median)")
    right.set_title("Refusal to text: ratio to floor (a = allocations)", fontsize=10)
    right.grid(axis="y", alpha=0.3, which="both")

    # Ratios as plain numbers (`2x`, `10x`), not powers of ten.
    from matplotlib.ticker import FuncFormatter

    for ax in (left, right):
        ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _: f"{y:g}x"))
        ax.yaxis.set_minor_formatter(FuncFormatter(lambda y, _: f"{y:g}x" if str(y)[0] in "25" else ""))
        ax.tick_params(axis="y", which="minor", labelsize=7)

    fig.suptitle(
        "Run time per variant, %d runs x %d interleaved rounds (%s, %d cores)"
        % (data["runs"], data["rounds"], data["profile"], data["machine"]["cores"]),
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(out / "runtime.png", dpi=110)
    print(f"chart: {out / 'runtime.png'}")


if __name__ == "__main__":
    main()
