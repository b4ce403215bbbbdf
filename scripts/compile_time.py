#!/usr/bin/env python3
"""Compile time of N tools declared four ways, measured in one run on this machine.

    python3 scripts/compile_time.py                 # N = 10, 100, 400; 3 builds each
    python3 scripts/compile_time.py --n 10 100 --reps 5 --out target/compile-time

Each variant is a crate of N copies of one three-parameter tool (range 1..=720, three choices,
range 1..=100 with default 10):

- envelope:  `#[tool]` with `#[validate(...)]` on the parameters (this repository's envelope-core);
- serde:     a `#[derive(Deserialize)]` struct of the same three fields (no checks, no schema);
- schemars:  the same struct with `#[derive(JsonSchema)]` and schemars' range attributes;
- rmcp:      the schemars struct plus an rmcp `#[tool]` method in one `#[tool_router]` impl.

Dependencies are built once (one target directory for all); each measurement touches the crate's
`lib.rs` and times `cargo build -j2` of that crate alone (debug), the median of `--reps` interleaved rounds.
"per tool" is (time at N - time of the same crate with no tools) / N. Expanded lines are counted
on the N=10 crates with `RUSTC_BOOTSTRAP=1 cargo rustc --profile check -- -Zunpretty=expanded`.

Writes `<out>/compile_time.json` and, when matplotlib is importable, `<out>/compile_time.png`.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

DEPS = {
    "envelope": f'envelope-core = {{ path = "{REPO}/envelope-core" }}\nserde = {{ version = "1", features = ["derive"] }}\n',
    "serde": 'serde = { version = "1", features = ["derive"] }\n',
    "schemars": 'serde = { version = "1", features = ["derive"] }\nschemars = "1"\n',
    "rmcp": 'serde = { version = "1", features = ["derive"] }\nschemars = "1"\n'
    'rmcp = { version = "3.11", default-features = false, features = ["server", "macros", "schemars"] }\n',
}


def envelope(n):
    out = ["use envelope_core::tool;\n"]
    for i in range(n):
        out.append(f'''
/// Lists the most expensive queries, variant {i}.
#[tool(read_only)]
pub fn tool_{i}(
    /// How far back to look, in hours.
    #[validate(range = 1..=720)]
    hours_back: u32,
    /// What to group by.
    #[validate(choices = ["query_hash", "database", "application"])]
    group_by: String,
    /// How many rows.
    #[validate(range = 1..=100, default = 10)]
    top: u32,
) -> Vec<String> {{
    vec![format!("{{group_by}} {{hours_back}} {{top}}")]
}}
''')
    return "".join(out)


def serde_struct(i, schemars):
    derive = "serde::Deserialize, schemars::JsonSchema" if schemars else "serde::Deserialize"
    r1 = "    #[schemars(range(min = 1, max = 720))]\n" if schemars else ""
    r2 = "    #[schemars(range(min = 1, max = 100))]\n" if schemars else ""
    return f'''
/// Arguments of variant {i}.
#[derive({derive})]
pub struct Args{i} {{
    /// How far back to look, in hours.
{r1}    pub hours_back: u32,
    /// What to group by.
    pub group_by: GroupBy{i},
    /// How many rows.
{r2}    #[serde(default = "ten")]
    pub top: u32,
}}

/// What to group by.
#[derive({derive})]
#[serde(rename_all = "snake_case")]
pub enum GroupBy{i} {{ QueryHash, Database, Application }}
'''


def serde_only(n, schemars=False):
    out = ["fn ten() -> u32 { 10 }\n"]
    out += [serde_struct(i, schemars) for i in range(n)]
    return "".join(out)


def rmcp(n):
    out = [
        "use rmcp::{tool, tool_router, handler::server::wrapper::Parameters};\n",
        "fn ten() -> u32 { 10 }\n",
    ]
    out += [serde_struct(i, True) for i in range(n)]
    out.append("\n/// The server.\n#[derive(Clone)]\npub struct Server { tool_router: rmcp::handler::server::tool::ToolRouter<Self> }\n")
    out.append("\n#[tool_router(server_handler)]\nimpl Server {\n")
    for i in range(n):
        out.append(f'''    #[tool(description = "Lists the most expensive queries, variant {i}.")]
    fn tool_{i}(&self, Parameters(a): Parameters<Args{i}>) -> String {{
        format!("{{}} {{}}", a.hours_back, a.top)
    }}
''')
    out.append("}\n")
    return "".join(out)


SOURCES = {
    "envelope": envelope,
    "serde": lambda n: serde_only(n),
    "schemars": lambda n: serde_only(n, schemars=True),
    "rmcp": rmcp,
}


def crate(root, variant, n):
    d = root / f"{variant}_{n}"
    (d / "src").mkdir(parents=True, exist_ok=True)
    (d / "Cargo.toml").write_text(
        f'[package]\nname = "ct_{variant}_{n}"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f"[dependencies]\n{DEPS[variant]}\n[workspace]\n"
    )
    body = SOURCES[variant](n) if n else ("fn ten() -> u32 { 10 }\n" if variant in ("serde", "schemars") else "")
    if variant == "rmcp" and n == 0:
        body = ""
    (d / "src" / "lib.rs").write_text("#![allow(dead_code, missing_docs)]\n" + body)
    return d


def build(d, env):
    subprocess.run(["cargo", "build", "-j2", "-q"], cwd=d, env=env, check=True)


def timed(d, env, reps):
    times = []
    for _ in range(reps):
        (d / "src" / "lib.rs").touch()
        start = time.perf_counter()
        build(d, env)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def expanded_lines(d, env):
    env = dict(env, RUSTC_BOOTSTRAP="1")
    out = subprocess.run(
        ["cargo", "rustc", "-q", "--profile", "check", "--", "-Zunpretty=expanded"],
        cwd=d, env=env, check=True, capture_output=True, text=True,
    ).stdout
    return sum(1 for line in out.splitlines() if line.strip())


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=int, nargs="+", default=[10, 100, 400])
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--variants", nargs="+", default=list(SOURCES))
    p.add_argument("--out", default=str(REPO / "target" / "compile-time"))
    p.add_argument(
        "--expanded-only",
        action="store_true",
        help="only count the expanded lines per tool of the envelope variant (scripts/expanded_lines.sh)",
    )
    args = p.parse_args()
    root = Path(args.out)
    root.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, CARGO_TARGET_DIR=str(root / "target"), CARGO_TERM_COLOR="never")
    if args.expanded_only:
        none, ten = crate(root, "envelope", 0), crate(root, "envelope", 10)
        lines = (expanded_lines(ten, env) - expanded_lines(none, env)) / 10
        print(f"envelope: {lines:.1f} expanded lines per tool")
        return
    results = {"machine": os.uname().machine, "cores": os.cpu_count(), "reps": args.reps, "variants": {}}
    # Build everything first, then time in interleaved rounds (every variant and N once per
    # round), so a load that comes and goes weighs on all variants alike.
    crates = {}
    for variant in args.variants:
        for n in [0, *args.n]:
            crates[variant, n] = crate(root, variant, n)
            build(crates[variant, n], env)
    times = {key: [] for key in crates}
    for _ in range(args.reps):
        for key, d in crates.items():
            times[key].append(timed(d, env, 1))
    for variant in args.variants:
        base = statistics.median(times[variant, 0])
        rows = []
        for n in args.n:
            t = statistics.median(times[variant, n])
            rows.append({"n": n, "seconds": round(t, 3), "ms_per_tool": round((t - base) * 1000 / n, 2)})
            print(f"{variant:9} N={n:4}: {t:6.2f} s, {rows[-1]['ms_per_tool']:6.2f} ms per tool", flush=True)
        lines = None
        if 10 in args.n:
            lines = round((expanded_lines(crates[variant, 10], env) - expanded_lines(crates[variant, 0], env)) / 10, 1)
        results["variants"][variant] = {"empty_seconds": round(base, 3), "rows": rows, "expanded_lines_per_tool": lines}
    if "serde" in results["variants"]:
        serde = {r["n"]: r["ms_per_tool"] for r in results["variants"]["serde"]["rows"]}
        for v in results["variants"].values():
            for r in v["rows"]:
                r["ratio_to_serde"] = round(r["ms_per_tool"] / serde[r["n"]], 2) if serde.get(r["n"]) else None
    (root / "compile_time.json").write_text(json.dumps(results, indent=2) + "\n")
    print(json.dumps(results, indent=2))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no chart drawn", file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, v in results["variants"].items():
        ax.plot([r["n"] for r in v["rows"]], [r["seconds"] - v["empty_seconds"] for r in v["rows"]], marker="o", label=name)
    ax.set_xlabel("tools in the crate (N)")
    ax.set_ylabel("debug build of the crate, s (minus the empty crate)")
    ax.set_title("Compile time against N (2 cores, median of %d)" % args.reps)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(root / "compile_time.png", dpi=110)
    print(f"chart: {root / 'compile_time.png'}")


if __name__ == "__main__":
    main()
