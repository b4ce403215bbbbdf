#!/usr/bin/env python3
"""The `use crate::` edges between envelope-core's top-level modules, and any cycle among them.

    python3 scripts/module_cycles.py          # prints the edges; exits 1 on a cycle

A module is a file under envelope-core/src (a folder counts as one module: `rules/`, `http/`,
`mcp/`). An edge A -> B is a path `crate::B...` in A's code outside comments and `#[cfg(test)]`
modules; a name the crate root re-exports (`crate::Envelope`) counts as an edge to the module
that defines it. The crate root (lib.rs) counts by its own items (`ToolError`, `ToolFailure`), not
by the modules it declares or re-exports.
"""

import re
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "envelope-core" / "src"


def module_of(path: Path) -> str:
    rel = path.relative_to(SRC)
    name = rel.parts[0].removesuffix(".rs")
    return "__private" if name == "private" else name


def strip(text: str) -> str:
    """Code without comments, string literals, or `#[cfg(test)]` modules."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    text = re.sub(r"//[^\n]*", "", text)
    out, i = [], 0
    for m in re.finditer(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text):
        if m.start() < i:
            continue
        out.append(text[i : m.start()])
        depth, j = 1, m.end()
        while depth and j < len(text):
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return "".join(out)


def use_heads(tree: str) -> list:
    """First segments of a `use crate::{a, b::c, d::{e}}` tree."""
    tree = tree.strip()
    if not tree.startswith("{"):
        return [re.split(r"::|\s", tree, maxsplit=1)[0]]
    inner, depth, part, heads = tree[1:-1], 0, "", []
    for ch in inner + ",":
        if ch == "," and depth == 0:
            if part.strip():
                heads.append(re.split(r"::|\s", part.strip(), maxsplit=1)[0])
            part = ""
            continue
        depth += {"{": 1, "}": -1}.get(ch, 0)
        part += ch
    return heads


def main() -> int:
    files = [p for p in SRC.rglob("*.rs") if p.name != "lib.rs"]
    modules = sorted({module_of(p) for p in files})
    root = strip((SRC / "lib.rs").read_text())
    # Names the root re-exports, to the module that defines them.
    reexport = {}
    for m in re.finditer(r"pub use (\w+)::(\{[^;]*\}|[^;]+);", root, flags=re.S):
        for name in re.findall(r"\w+", m.group(2)):
            reexport.setdefault(name, m.group(1))
    for m in re.finditer(r"pub (?:mod|struct|enum|trait|fn) (\w+)", root):
        reexport.setdefault(m.group(1), "lib")
    edges = {m: set() for m in modules}
    # The root's own items (`ToolError`, `ToolFailure`) use what it re-exports.
    body = re.sub(r"(?:pub )?use [^;]*;|(?:pub )?mod \w+;|#\[[^\]]*\]", "", root, flags=re.S)
    edges["lib"] = {reexport[w] for w in re.findall(r"\b[A-Z]\w*|\bcodes\b", body) if reexport.get(w, "lib") != "lib"}
    modules.append("lib")
    for p in files:
        here = module_of(p)
        code = strip(p.read_text())
        heads = []
        for m in re.finditer(r"\buse crate::(\{.*?\}|[^;]+);", code, flags=re.S):
            heads += use_heads(m.group(1))
        heads += re.findall(r"(?<!use )\bcrate::(\w+)", code)
        for h in heads:
            target = h if h in modules else reexport.get(h)
            if target == "private":
                target = "__private"
            if target and target != here:
                edges[here].add(target)
    for m in modules:
        print(f"{m:10} -> {', '.join(sorted(edges[m])) or '-'}")
    # Any cycle: depth-first search with colours.
    state, stack, cycles = {}, [], []

    def visit(m):
        state[m] = 1
        stack.append(m)
        for n in sorted(edges.get(m, ())):
            if state.get(n) == 1:
                cycles.append(stack[stack.index(n) :] + [n])
            elif n in edges and not state.get(n):
                visit(n)
        stack.pop()
        state[m] = 2

    for m in modules:
        if not state.get(m):
            visit(m)
    if cycles:
        for c in cycles:
            print("cycle: " + " -> ".join(c))
        return 1
    print(f"no cycle among {len(modules)} modules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
