#!/usr/bin/env python3
"""Names used twice in one crate: module names (file, folder or inline `mod`) and the names of
public types (`pub struct`, `pub enum`, `pub trait`, `pub type`, `pub union`, any `pub(...)`),
outside `#[cfg(test)]` modules; and public paths: an item exported (defined `pub`, or
re-exported with `pub use`) by two public modules of envelope-core, the root's names aside, so
each public item has one path. Exit status 1 when a name is used twice.

    python3 scripts/names.py                 # envelope-core and envelope-macros
    python3 scripts/names.py envelope-core   # one crate
"""

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["envelope-core", "envelope-macros"]
ITEM = re.compile(r"^\s*pub(?:\([^)]*\))?\s+(struct|enum|trait|type|union)\s+([A-Za-z_]\w*)", re.M)
MOD = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+([A-Za-z_]\w*)\s*[;{]", re.M)
TEST_MOD = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*\{")
# A test module in a file of its own (`#[cfg(test)] mod tests;`): no name of the crate's.
TEST_MOD_FILE = re.compile(r"#\[cfg\(test\)\]\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+\w+\s*;")


def strip_tests(text):
    """Drop `#[cfg(test)] mod x { ... }` bodies (brace matching; good enough for this crate)."""
    out, i = [], 0
    for m in TEST_MOD.finditer(text):
        if m.start() < i:
            continue
        out.append(text[i:m.start()])
        depth, j = 1, m.end()
        while j < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[j], 0)
            j += 1
        i = j
    out.append(text[i:])
    return TEST_MOD_FILE.sub("", "".join(out))


def names(crate):
    src = ROOT / crate / "src"
    modules, types = defaultdict(list), defaultdict(list)
    for f in sorted(src.rglob("*.rs")):
        rel = f.relative_to(src)
        text = strip_tests(f.read_text())
        text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
        for m in MOD.finditer(text):
            modules[m.group(1)].append(f"{rel}: mod {m.group(1)}")
        for m in ITEM.finditer(text):
            types[m.group(2)].append(f"{rel}: {m.group(1)} {m.group(2)}")
    return modules, types


PUB_DEF = re.compile(r"^pub\s+(?:const\s+fn|async\s+fn|fn|struct|enum|trait|type|union|const|static)\s+([A-Za-z_]\w*)", re.M)
PUB_MOD = re.compile(r"^\s*pub\s+mod\s+([A-Za-z_]\w*)\s*;", re.M)
PUB_USE = re.compile(r"^pub\s+use\s+([^;]+);", re.M)


def module_file(parent, name, is_root):
    """The file of module `name` declared in `parent` (`name.rs` or `name/mod.rs`)."""
    folder = parent.parent if (is_root or parent.name == "mod.rs") else parent.parent / parent.stem
    for candidate in (folder / f"{name}.rs", folder / name / "mod.rs"):
        if candidate.exists():
            return candidate
    return None


def exported_names(spec):
    """The names a `pub use` brings in: `a::{B, C as D}` gives B and D."""
    spec = " ".join(spec.split())
    group = re.match(r"(.*)::\{(.*)\}$", spec)
    parts = [p.strip() for p in group.group(2).split(",")] if group else [spec]
    out = []
    for part in parts:
        if not part or part == "self" or part.endswith("*"):
            continue
        out.append(part.split(" as ")[1].strip() if " as " in part else part.split("::")[-1])
    return out


def public_paths(crate):
    """Each name exported by a public module (not the root, not `__private*`), with the modules
    that export it."""
    found = defaultdict(set)

    def visit(f, path, is_root):
        text = re.sub(r"//[^\n]*", "", strip_tests(f.read_text()))
        for m in PUB_MOD.finditer(text):
            sub = module_file(f, m.group(1), is_root)
            if sub is not None and not m.group(1).startswith("__private"):
                visit(sub, path + [m.group(1)], False)
        if is_root:
            return
        for m in PUB_DEF.finditer(text):
            found[m.group(1)].add("::".join(path))
        for m in PUB_USE.finditer(text):
            for name in exported_names(m.group(1)):
                found[name].add("::".join(path))

    visit(ROOT / crate / "src" / "lib.rs", ["crate"], True)
    return found


def main(args):
    bad = 0
    if not args or "envelope-core" in args:
        paths = public_paths("envelope-core")
        print(f"envelope-core: {len(paths)} public names below the root")
        for name, where in sorted(paths.items()):
            if len(where) > 1:
                bad += 1
                print(f"  public `{name}` at {len(where)} paths: " + ", ".join(sorted(where)))
    for crate in args or CRATES:
        modules, types = names(crate)
        print(f"{crate}: {len(modules)} module names, {len(types)} public type names")
        for kind, table in (("module", modules), ("type", types)):
            for name, where in sorted(table.items()):
                if len(where) > 1:
                    bad += 1
                    print(f"  {kind} `{name}` {len(where)} times: " + "; ".join(where))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
