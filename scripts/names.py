#!/usr/bin/env python3
"""Names used twice in one crate: module names (file, folder or inline `mod`) and the names of
public types (`pub struct`, `pub enum`, `pub trait`, `pub type`, `pub union`, any `pub(...)`),
outside `#[cfg(test)]` modules. Exit status 1 when a name is used twice.

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
    return "".join(out)


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


def main(args):
    bad = 0
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
