#!/usr/bin/env python3
"""Dependency cycles among a Rust crate's modules, and the layer order of its top-level modules.

    python3 scripts/module_cycles.py                      # envelope-core and envelope-macros
    python3 scripts/module_cycles.py envelope-core        # one crate (a directory with src/)
    python3 scripts/module_cycles.py --edges CRATE...     # also print every edge with an example
    python3 scripts/module_cycles.py --layers CRATE...    # also check LAYERS (below)
    python3 scripts/module_cycles.py --self-test          # synthetic crates in a temp dir

Exit status 1 when a crate has a cycle not listed in KNOWN_CYCLES (below), when an entry there
no longer occurs, or, with --layers, when an edge points up the layer order (LAYERS, below).

What a module is. Every module of the crate is a node, by its path: `crate` (src/lib.rs),
`confirm`, `mcp` (mcp/mod.rs's own code), `mcp::wire`, `__private010` (declared in lib.rs with
`#[path = "private.rs"]`), and a module declared inline (`mod inner { ... }`) is a node of its
own. Modules found from `mod NAME;` as rustc finds them (`NAME.rs`, `NAME/mod.rs`, or `#[path]`),
in `foo.rs` + `foo/` and `foo/mod.rs` layouts. Test code is not a dependency of the crate: an item
under `#[cfg(test)]` (`mod tests { ... }`, a `mod tests;` file, a test-only `use`) is skipped.

What an edge is. A -> B when A's code names an item that B defines:
  - a `use` of an item (`use crate::b::Thing;`, `use super::{wire::Incoming}`, a `use` inside a
    function body), resolved through `crate::`, `super::`, `self::`, a child module's name, or a
    name the module imported;
  - a qualified path in code (`crate::confirm::Guard::new()`, `super::status(&e)`,
    `mrtr::call(...)` for a child module `mrtr`, `wire::read(...)` after `use super::wire`);
  - a glob `use b::*;` (not under `#[cfg(test)]`), to b.
A path is resolved to the module that *defines* the item, following re-exports: `crate::Envelope`
(re-exported by lib.rs from `envelope`) is an edge to `envelope`, not to `crate`. A re-export
(`pub use`, `pub(crate) use`, ... at module level) is therefore not an edge of the module that
re-exports, unless that module's own code also uses the name it re-exports. Importing a module
(`use crate::render;`) is not an edge by itself: the paths through it (`render::quoted(...)`)
are. Declaring a child (`mod wire;`) is not an edge. A child's `super::helper()` is an edge to
the parent: the parent's own code is the parent node. A path that stops at a name the checker
cannot find (an enum variant, a macro's output) is an edge to the last module it reached.

Lexing. Comments (`//`, `///`, `//!`, nested `/* */`) and literals (strings with escapes, raw
strings `r#"..."#`, byte and C strings, char literals, told from lifetimes) are read in one pass,
left to right, so a quote in a comment or `//` in a string hides nothing. The token trees of
`quote!`, `quote_spanned!`, `parse_quote!` and `parse_quote_spanned!` are skipped: their paths
belong to the code a proc macro generates, not to the macro crate.

A cycle is reported as the chain of modules with one example edge (file:line and the path) per
step. Every elementary cycle is listed (up to MAX_CYCLES per crate).
"""

import os
import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ["envelope-core", "envelope-macros"]
MAX_CYCLES = 200

# Cycles known today, each with the move that breaks it. The check prints them and passes over
# them; it fails on any other cycle, and on an entry here that no longer occurs (delete the entry
# when its cycle is broken). Keyed by the chain as printed.
KNOWN_CYCLES: dict[str, dict[str, str]] = {}

# The layer order `--layers` checks, top layer first: an edge between two top-level modules may
# only point to the same layer or a lower one (within a layer, the cycle check is the rule).
# Every top-level module must be listed; a child (`mcp::wire`) is in its top-level module's
# layer. `crate` is lib.rs's own code (ToolError, ToolFailure): its re-exports are no edges.
# For envelope-core the layers are the folders of src/ (docs/guide/development.md, "Layout").
LAYERS = {
    "envelope-core": [
        ["__private010"],  # what generated code calls: re-exports only
        ["http", "mcp", "providers", "client"],  # the adapters, and the client's reply reader
        ["call"],  # the toolbox and the call pipeline, surfaces, policy, audit, guard/
        ["schema"],  # the input schema and every output schema
        ["read"],  # reading a call's arguments: walker, value readers, rules
        ["context"],  # the call: its caller, id, cancellation, progress and logs, client asks
        ["spec"],  # declarations as data: parameters, rules, formats, rate limits
        ["crate", "outcome"],  # the envelope, codes, refusals, faults, ToolError, wire formats
        ["words"],  # quoting, the one cut, lists, did-you-mean, numbers, budgets
    ],
    "envelope-macros": [
        ["crate"],
        ["choice", "error", "object", "expand"],  # the derives and the expansion of #[tool]
        ["check"],  # what the user wrote -> the checked model
        ["attr", "model"],  # parse (what the user wrote, with spans); the typed checked model
        ["rules"],  # the rule table: names, forms, applicability, trait bounds
        ["ty", "diag", "suggest", "private"],  # type helpers, errors and spans, did-you-mean, the private path
    ],
}

QUOTE_MACROS = {"quote", "quote_spanned", "parse_quote", "parse_quote_spanned"}
ITEM_KEYWORDS = {"fn", "struct", "enum", "trait", "type", "const", "static", "union"}
KEYWORDS = ITEM_KEYWORDS | {"mod", "use", "pub", "impl", "unsafe", "async", "extern", "crate", "self", "super",
                            "Self", "where", "for", "as", "mut", "ref", "dyn", "in", "let", "match", "if"}


# ---------------------------------------------------------------------------------------------
# Lexing


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return f"{self.kind}:{self.text}@{self.line}"


IDENT = re.compile(r"[^\W\d]\w*")
NUMBER = re.compile(r"\d\w*")


def lex(text):
    """Rust source to tokens (`ident`, `lifetime`, `str`, `char`, `num`, `punct`); comments
    dropped. `::` is one token; every other punctuation character is a token of its own."""
    toks, i, n, line = [], 0, len(text), 1

    def scan_string(j):
        """`j` at the opening quote of a string with escapes: the index after the closing one."""
        j += 1
        while j < n and text[j] != '"':
            j += 2 if text[j] == "\\" else 1
        return j + 1

    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            line += text.count("\n", i, j)
            i = j
        elif c == '"':
            j = scan_string(i)
            toks.append(Tok("str", text[i + 1 : j - 1], line))
            line += text.count("\n", i, j)
            i = j
        elif c == "'":
            if i + 1 < n and text[i + 1] == "\\":  # '\n', '\'', '\u{1F600}'
                j = i + 3
                while j < n and text[j] != "'":
                    j += 1
                toks.append(Tok("char", text[i : j + 1], line))
                i = j + 1
            elif i + 2 < n and text[i + 2] == "'":  # 'a', '"'
                toks.append(Tok("char", text[i : i + 3], line))
                i += 3
            else:  # a lifetime or a label: 'a, 'static, 'outer
                m = IDENT.match(text, i + 1)
                j = m.end() if m else i + 1
                toks.append(Tok("lifetime", text[i:j], line))
                i = j
        elif c.isdigit():
            m = NUMBER.match(text, i)
            toks.append(Tok("num", m.group(), line))
            i = m.end()
        elif IDENT.match(text, i):
            m = IDENT.match(text, i)
            word, j = m.group(), m.end()
            nxt = text[j] if j < n else ""
            if word in ("r", "br", "cr") and (nxt == '"' or (nxt == "#" and re.match(r"#+\"", text[j:]))):
                hashes = len(text[j:]) - len(text[j:].lstrip("#"))
                close = '"' + "#" * hashes
                end = text.find(close, j + hashes + 1)
                end = n if end < 0 else end + len(close)
                toks.append(Tok("str", text[j + hashes + 1 : end - len(close)], line))
                line += text.count("\n", i, end)
                i = end
            elif word == "r" and nxt == "#" and IDENT.match(text, j + 1):  # a raw identifier, r#type
                m2 = IDENT.match(text, j + 1)
                toks.append(Tok("ident", m2.group(), line))
                i = m2.end()
            elif word in ("b", "c") and nxt == '"':
                end = scan_string(j)
                toks.append(Tok("str", text[j + 1 : end - 1], line))
                line += text.count("\n", i, end)
                i = end
            elif word == "b" and nxt == "'":  # b'a', b'\''
                k = j + 1
                k += 2 if text[k] == "\\" else 1
                while k < n and text[k] != "'":
                    k += 1
                toks.append(Tok("char", text[i : k + 1], line))
                i = k + 1
            else:
                toks.append(Tok("ident", word, line))
                i = j
        elif text.startswith("::", i):
            toks.append(Tok("punct", "::", line))
            i += 2
        else:
            toks.append(Tok("punct", c, line))
            i += 1
    return toks


def matching(toks, i):
    """Index of the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind == "punct":
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
                if depth == 0:
                    return j
    return len(toks) - 1


def item_end(toks, i, end):
    """Index after the item starting at `i`: its `;` at depth 0, or its closing `}`."""
    depth = 0
    while i < end:
        t = toks[i]
        if t.kind == "punct":
            if t.text in "([{":
                depth += 1
            elif t.text in ")]}":
                depth -= 1
                if depth == 0 and t.text == "}":
                    return i + 1
            elif t.text == ";" and depth == 0:
                return i + 1
        i += 1
    return end


# ---------------------------------------------------------------------------------------------
# Modules


class Use:
    """One leaf of a `use` tree: the path (`segs`), the name it binds (None for a glob or
    `as _`), where it is, and whether it is a module-level re-export."""

    __slots__ = ("segs", "name", "glob", "line", "reexport", "text")

    def __init__(self, segs, name, glob, line, reexport):
        self.segs, self.name, self.glob, self.line, self.reexport = segs, name, glob, line, reexport
        self.text = "use " + "::".join(segs) + ("::*" if glob else "")


class Module:
    def __init__(self, path, file, parent, child_dir):
        self.path, self.file, self.parent, self.child_dir = path, file, parent, child_dir
        self.inline = False
        self.children = {}
        self.items = set()
        self.imports = {}  # name -> Use
        self.globs = []
        self.uses = []
        self.code = []  # tokens outside `use` items, attributes, child modules and test code

    @property
    def name(self):
        return "::".join(self.path) or "crate"


def use_leaves(toks):
    """The leaves of a `use` tree (tokens between `use` and `;`): (segments, bound name, glob)."""
    out = []

    def tree(i, prefix):
        segs = list(prefix)
        if i < len(toks) and toks[i].text == "::":  # `use ::std::...`
            segs.append("")
            i += 1
        while i < len(toks):
            t = toks[i]
            if t.text == "{":
                close = matching(toks, i)
                j = i + 1
                while j < close:
                    j = tree(j, segs)
                    if j < close and toks[j].text == ",":
                        j += 1
                return close + 1
            if t.text == "*":
                out.append((segs, None, True))
                return i + 1
            if t.text == "$" and i + 1 < len(toks):  # `$crate` in a macro_rules
                segs.append("$" + toks[i + 1].text)
                i += 2
            elif t.kind == "ident":
                segs.append(t.text)
                i += 1
            else:
                return i + 1
            if i < len(toks) and toks[i].text == "::":
                i += 1
                continue
            name = segs[-1]
            if name == "self":
                segs = segs[:-1]
                name = segs[-1] if segs else None
            if i + 1 < len(toks) and toks[i].text == "as":
                name = toks[i + 1].text if toks[i + 1].text != "_" else None
                i += 2
            out.append((segs, name, False))
            return i
        return i

    i = 0
    while i < len(toks):
        i = tree(i, [])
        if i < len(toks) and toks[i].text == ",":
            i += 1
    return out


def is_cfg_test(attr):
    """Whether the attribute (tokens inside `#[...]`) is a `cfg` that holds only under `cargo
    test`: `cfg(test)`, `cfg(all(test, ...))`, `cfg(any(test, all(test, x)))`; not
    `cfg(any(test, feature = "x"))` nor `cfg(not(test))`."""
    if len(attr) < 2 or attr[0].text != "cfg" or attr[1].text != "(":
        return False

    def pred(i):
        """(index after the predicate at `i`, whether it implies `test`)."""
        word = attr[i].text
        if i + 1 < len(attr) and attr[i + 1].text == "(":
            close, parts, j = matching(attr, i + 1), [], i + 2
            while j < close:
                j, implied = pred(j)
                parts.append(implied)
                j += attr[j].text == ","
            implied = {"all": any(parts), "any": bool(parts) and all(parts)}.get(word, False)
            return close + 1, implied
        if i + 2 < len(attr) and attr[i + 1].text == "=":  # feature = "x"
            return i + 3, False
        return i + 1, word == "test"

    return pred(2)[1]


class Crate:
    def __init__(self, crate_dir):
        self.dir = Path(crate_dir)
        src = self.dir / "src"
        lib = src / "lib.rs"
        if not lib.exists():
            lib = src / "main.rs"
        self.root = Module((), lib, None, src)
        self.modules = [self.root]
        self.load(self.root, lib)

    def rel(self, path):
        try:
            return str(Path(path).resolve().relative_to(ROOT))
        except ValueError:
            return str(path)

    def load(self, mod, file):
        toks = lex(Path(file).read_text(encoding="utf-8"))
        self.parse(mod, toks, 0, len(toks))

    def parse(self, mod, toks, i, end):
        depth = 0
        path_attr = None
        while i < end:
            t = toks[i]
            if t.text == "#" and i + 1 < end and toks[i + 1].text in ("[", "!"):
                inner = toks[i + 1].text == "!"
                open_ = i + 2 if inner else i + 1
                close = matching(toks, open_)
                attr = toks[open_ + 1 : close]
                if not inner and is_cfg_test(attr):
                    k = close + 1
                    while k < end and toks[k].text == "#":  # the item's other attributes
                        k = matching(toks, k + 1) + 1
                    i = item_end(toks, k, end)
                    continue
                if inner and is_cfg_test(attr) and depth == 0:
                    return  # `#![cfg(test)]`: the whole module is test code
                if len(attr) >= 3 and attr[0].text == "path" and attr[1].text == "=" and attr[2].kind == "str":
                    path_attr = attr[2].text
                i = close + 1
                continue
            if depth == 0 and t.text == "mod" and i + 2 < end and toks[i + 1].kind == "ident":
                name, after = toks[i + 1].text, toks[i + 2].text
                if after == ";":
                    self.file_module(mod, name, path_attr)
                    i += 3
                elif after == "{":
                    close = matching(toks, i + 2)
                    child = Module(mod.path + (name,), mod.file, mod, mod.child_dir / name)
                    child.inline = True
                    mod.children[name] = child
                    self.modules.append(child)
                    self.parse(child, toks, i + 3, close)
                    i = close + 1
                else:
                    i += 1
                path_attr = None
                continue
            if t.text == "use" and t.kind == "ident":
                semi = i
                while semi < end and toks[semi].text != ";":
                    semi += 1
                semi += 1
                reexport = depth == 0 and self.is_pub(toks, i)
                for segs, name, glob in use_leaves(toks[i + 1 : semi - 1]):
                    u = Use(segs, name, glob, t.line, reexport)
                    mod.uses.append(u)
                    if glob:
                        mod.globs.append(u)
                    elif name and (depth == 0 or name not in mod.imports):
                        mod.imports[name] = u
                i = semi
                continue
            if t.kind == "ident" and t.text in QUOTE_MACROS and i + 2 < end and toks[i + 1].text == "!":
                i = matching(toks, i + 2) + 1
                continue
            if depth == 0 and t.kind == "ident" and i + 1 < end:
                nxt = toks[i + 1]
                if t.text == "static" and nxt.text == "mut" and i + 2 < end:
                    nxt = toks[i + 2]
                if t.text in ITEM_KEYWORDS and nxt.kind == "ident" and nxt.text not in KEYWORDS:
                    mod.items.add(nxt.text)
                elif t.text == "macro_rules" and nxt.text == "!" and i + 2 < end:
                    mod.items.add(toks[i + 2].text)
            if t.kind == "punct":
                if t.text in "([{":
                    depth += 1
                elif t.text in ")]}":
                    depth -= 1
            mod.code.append(t)
            path_attr = None if t.text not in ("pub", "(", ")", "crate", "super", "in") else path_attr
            i += 1

    @staticmethod
    def is_pub(toks, i):
        """Whether the item whose keyword is at `i` has a visibility (`pub`, `pub(crate)`...)."""
        j = i - 1
        if j >= 0 and toks[j].text == ")":
            depth = 0
            while j >= 0:
                depth += {")": 1, "(": -1}.get(toks[j].text, 0)
                if depth == 0:
                    break
                j -= 1
            j -= 1
        return j >= 0 and toks[j].text == "pub"

    def file_module(self, mod, name, path_attr):
        parent_dir = Path(mod.file).parent
        if path_attr:  # relative to the declaring file's folder, or an inline module's
            file = (mod.child_dir if mod.inline else parent_dir) / path_attr
            child_dir = file.parent
            if not file.exists():
                raise SystemExit(f"{self.rel(mod.file)}: `mod {name};` names {file}, which does not exist")
        else:
            for cand, cdir in ((mod.child_dir / f"{name}.rs", mod.child_dir / name),
                               (mod.child_dir / name / "mod.rs", mod.child_dir / name)):
                if cand.exists():
                    file, child_dir = cand, cdir
                    break
            else:
                raise SystemExit(f"{self.rel(mod.file)}: `mod {name};` has no file")
        child = Module(mod.path + (name,), file, mod, child_dir)
        mod.children[name] = child
        self.modules.append(child)
        self.load(child, file)

    # -- resolution ----------------------------------------------------------------------------

    def lookup(self, mod, name, seen):
        """What `name` is inside `mod`: ("module", M), ("item", M that defines it), or None (not
        in this crate: an extern crate, the prelude, a local)."""
        if name in mod.children:
            return ("module", mod.children[name])
        if name in mod.items:
            return ("item", mod)
        key = (mod.path, name)
        if key in seen:
            return None
        seen = seen | {key}
        if name in mod.imports:
            return self.resolve(mod, mod.imports[name].segs, seen)
        for g in mod.globs:
            r = self.resolve(mod, g.segs, seen)
            if r and r[0] == "module":
                found = self.lookup(r[1], name, seen)
                if found:
                    return found
        return None

    def resolve(self, mod, segs, seen=frozenset()):
        first = segs[0]
        if first in ("crate", "$crate"):
            r = ("module", self.root)
        elif first == "super":
            r = ("module", mod.parent) if mod.parent else None
        elif first == "self":
            r = ("module", mod)
        elif first == "":  # `::name`: an extern crate
            r = None
        else:
            r = self.lookup(mod, first, seen)
        for s in segs[1:]:
            if r is None or r[0] == "item":
                return r
            m = r[1]
            if s == "super":
                r = ("module", m.parent) if m.parent else None
            elif s != "self":
                r = self.lookup(m, s, seen) or ("item", m)
        return r

    def edges(self):
        """{(from, to): (file, line, text)}: the first example of each edge."""
        out = {}

        def add(a, b, line, text):
            if a is not b:
                out.setdefault((a.name, b.name), (self.rel(a.file), line, text))

        for m in self.modules:
            words = {t.text for t in m.code if t.kind == "ident"}
            for u in m.uses:
                if u.reexport and (u.glob or u.name not in words):
                    continue
                r = self.resolve(m, u.segs)
                if r is None:
                    continue
                if u.glob and r[0] == "module":
                    add(m, r[1], u.line, u.text)
                elif r[0] == "item":
                    add(m, r[1], u.line, u.text)
            code = m.code
            for k, t in enumerate(code):
                if t.kind != "ident" or (k and code[k - 1].text == "::"):
                    continue
                segs, j = [t.text], k
                if t.text == "crate" and k and code[k - 1].text == "$":
                    segs = ["$crate"]
                while j + 2 < len(code) and code[j + 1].text == "::" and code[j + 2].kind == "ident":
                    segs.append(code[j + 2].text)
                    j += 2
                if len(segs) < 2 and not (j + 1 < len(code) and code[j + 1].text == "::"):
                    continue
                if segs[0] in ("Self",) or (segs[0] in KEYWORDS and segs[0] not in ("crate", "self", "super")):
                    continue
                r = self.resolve(m, segs)
                if r is not None:
                    add(m, r[1], t.line, "::".join(segs))
        return out


# ---------------------------------------------------------------------------------------------
# Cycles and layers


def cycles(nodes, edges):
    """Every elementary cycle, each once, starting from its smallest node (in `nodes` order)."""
    index = {n: i for i, n in enumerate(nodes)}
    succ = {n: sorted({b for (a, b) in edges if a == n}, key=index.get) for n in nodes}
    found = []
    for s in nodes:
        stack = [(s, iter(succ[s]))]
        path, on_path = [s], {s}
        while stack and len(found) < MAX_CYCLES:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                on_path.discard(path.pop())
            elif nxt == s:
                found.append(path + [s])
            elif index[nxt] > index[s] and nxt not in on_path:
                path.append(nxt)
                on_path.add(nxt)
                stack.append((nxt, iter(succ[nxt])))
    return sorted(found, key=lambda c: (len(c), c))


def top(name):
    return name.split("::")[0]


def check_layers(label, names, edges):
    layers = LAYERS.get(label)
    if layers is None:
        print(f"  layers: no order written for {label}")
        return 1
    level = {m: i for i, layer in enumerate(layers) for m in layer}
    bad = 0
    for m in sorted({top(n) for n in names} - set(level)):
        print(f"  layers: `{m}` is in no layer of LAYERS[{label!r}]")
        bad += 1
    for (a, b), (file, line, text) in sorted(edges.items()):
        ta, tb = top(a), top(b)
        if ta != tb and ta in level and tb in level and level[ta] > level[tb]:
            print(f"  layers: {a} -> {b} points up ({ta} is below {tb})  {file}:{line}  {text}")
            bad += 1
    for m in sorted(set(level) - {top(n) for n in names}):
        print(f"  layers: `{m}` is listed but is no module")
        bad += 1
    if not bad:
        print(f"  layers: every edge between top-level modules points down ({len(layers)} layers)")
    return bad


def check(crate_dir, show_edges=False, layers=False, quiet=False, use_known=True):
    """Prints the crate's cycles; returns the cycles not in KNOWN_CYCLES (each a list of module
    names, the first repeated at the end), and how many problems the layer check and stale
    KNOWN_CYCLES entries found."""
    crate = Crate(crate_dir)
    names = [m.name for m in sorted(crate.modules, key=lambda m: m.path)]
    edges = crate.edges()
    label = Path(crate_dir).resolve().name
    found = cycles(names, edges)
    known = KNOWN_CYCLES.get(label, {}) if use_known else {}
    if not quiet:
        print(f"{label}: {len(names)} modules, {len(edges)} edges")
        if show_edges:
            for (a, b), (file, line, text) in sorted(edges.items()):
                print(f"  {a:24} -> {b:24} {file}:{line}  {text}")
        for c in found:
            chain = " -> ".join(c)
            why = known.get(chain)
            print(f"  {'known cycle' if why else 'cycle'}: {chain}" + (f"  (KNOWN_CYCLES: {why})" if why else ""))
            for a, b in zip(c, c[1:]):
                file, line, text = edges[(a, b)]
                print(f"    {a} -> {b}  {file}:{line}  {text}")
        for chain in sorted(set(known) - {" -> ".join(c) for c in found}):
            print(f"  KNOWN_CYCLES lists `{chain}`, which no longer occurs: delete the entry")
        if not found:
            print("  no cycle")
        elif all(" -> ".join(c) in known for c in found):
            print(f"  no cycle but the {len(found)} in KNOWN_CYCLES")
        if len(found) >= MAX_CYCLES:
            print(f"  (stopped at {MAX_CYCLES} cycles)")
    bad = check_layers(label, names, edges) if layers else 0
    bad += len(set(known) - {" -> ".join(c) for c in found})
    return [c for c in found if " -> ".join(c) not in known], bad


# ---------------------------------------------------------------------------------------------
# Self-test: synthetic crates, one per flaw of the earlier checker


SELF_TESTS = {
    # A `"` in a doc comment must not open a string that eats the `use` after it.
    "quote_in_doc_comment": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": '/// Say "hello.\npub struct A;\nuse crate::b::B;\n/// and "bye.\n',
            "b.rs": "pub struct B;\nuse crate::a::{self as m, A};\nfn f(_: m::A) {}\n",
        },
        [["a", "b", "a"]],
    ),
    # `//` inside a raw string (and a `"` inside it) is not a comment: the call after it counts.
    "raw_string_holding_slashes": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": 'pub fn a() {}\nfn f() { let u = r#"a " then http://x"#; crate::b::g(u); }\n',
            "b.rs": "pub fn g(_: &str) { crate::a::a() }\n",
        },
        [["a", "b", "a"]],
    ),
    # Char literals holding a quote are not strings, lifetimes are not char literals, byte
    # strings and nested block comments end where they end.
    "chars_lifetimes_bytes_nested_comments": (
        {
            "lib.rs": "mod a;\nmod b;\nmod c;\n",
            "a.rs": (
                "pub fn q<'a>(s: &'a str) -> char { let _ = b\"\\\"//\"; let _ = b'\"'; '\"' }\n"
                "fn f() { crate::b::g() }\n"
                "/* outer /* inner */ crate::c::h() still a comment */\n"
            ),
            "b.rs": "pub fn g() { let _ = '\\''; crate::a::q(\"x\"); }\n",
            "c.rs": "pub fn h() { crate::a::q(\"\") ; }\n",
        },
        [["a", "b", "a"]],
    ),
    # `super::` and in-folder edges: m/x.rs uses a sibling through `super::`, m/y.rs uses it back
    # through a child-module path; m/mod.rs's own helper used by a child is an edge to `m`.
    "super_and_folder_edges": (
        {
            "lib.rs": "mod m;\nmod n;\n",
            "m/mod.rs": "mod x;\nmod y;\npub use x::X;\nfn helper() {}\n",
            "m/x.rs": "use super::y::Y;\npub struct X;\n",
            "m/y.rs": "pub struct Y;\nfn g() { super::x::X; super::helper() }\n",
            "n.rs": "mod inner;\nfn k() { inner::f() }\npub fn back() {}\n",
            "n/inner.rs": "pub fn f() { self::g() }\nfn g() { super::back() }\n",
        },
        [["m::x", "m::y", "m::x"], ["n", "n::inner", "n"]],
    ),
    # A module declared inline in lib.rs (with a `#[path]`-loaded sibling file) is its own node,
    # not the crate root; a path through the root's re-export reaches the defining module.
    "inline_private_module": (
        {
            "lib.rs": (
                "mod confirm;\nmod spec;\npub use spec::Spec;\n"
                '#[path = "private.rs"]\npub mod __private_file;\n'
                "#[doc(hidden)]\npub mod __private010 {\n    pub fn codes() {}\n"
                "    pub use crate::confirm::key;\n    pub fn key_param() { crate::confirm::key() }\n}\n"
            ),
            "confirm.rs": "pub fn key() {}\nfn f() { let _ = crate::Spec; crate::__private010::codes(); }\n",
            "spec.rs": "pub struct Spec;\nfn s() { crate::__private_file::p() }\n",
            "private.rs": "pub fn p() {}\nfn q() { let _: crate::spec::Spec; }\n",
        },
        [["__private010", "confirm", "__private010"], ["__private_file", "spec", "__private_file"]],
    ),
    # Test code is no dependency: `mod tests { ... }`, a `#[cfg(test)] mod tests;` file and a
    # test-only `use` under #[cfg(test)] make no edge (b -> a alone is no cycle).
    "test_module_ignored": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": (
                "pub fn a() {}\n#[cfg(test)]\nuse crate::b::B;\n#[cfg(test)]\n#[path = \"t.rs\"]\nmod t;\n"
                "#[cfg(test)]\nmod tests {\n    use super::*;\n    use crate::b::B;\n"
                "    #[test]\n    fn t() { crate::b::g(); }\n}\n"
            ),
            "b.rs": "pub struct B;\npub fn g() { crate::a::a() }\n",
            "t.rs": "fn t() { crate::b::g() }\n",
        },
        [],
    ),
    # A re-export alone is no edge of the re-exporting module (a -> b would close a cycle); its
    # own use of a name it re-exports is (a -> c, through an `as` rename); a path through a
    # re-export reaches the defining module (c -> b, not c -> a). Importing a module is no edge
    # (d -> r would close a cycle): the paths through it are (d -> r::inner).
    "reexports_and_module_imports": (
        {
            "lib.rs": "mod a;\nmod b;\nmod c;\nmod d;\nmod r;\n",
            "a.rs": "pub use crate::b::B;\npub use crate::c::C as Renamed;\npub fn a() {}\nfn f(_: Renamed) {}\n",
            "b.rs": "pub struct B;\nfn g() { crate::a::a() }\n",
            "c.rs": "pub struct C;\nuse crate::a::B as Bee;\nfn h(_: Bee) {}\n",
            "d.rs": "use crate::r;\npub fn d() { r::inner::f() }\n",
            "r/mod.rs": "pub mod inner;\nfn k() { crate::d::d() }\n",
            "r/inner.rs": "pub fn f() {}\n",
        },
        [["a", "c", "b", "a"]],
    ),
    # Paths generated by a proc macro (inside quote!) are not the macro crate's own edges.
    "quote_is_generated_code": (
        {
            "lib.rs": "mod a;\nmod b;\n",
            "a.rs": "pub fn a() { let _ = quote! { crate::b::g() }; }\n",
            "b.rs": "pub fn g() { crate::a::a() }\n",
        },
        [],
    ),
}


def write_crate(crate_dir, files):
    for rel, text in files.items():
        p = Path(crate_dir) / "src" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return crate_dir


def self_test():
    failed = 0

    def report(name, ok, detail=""):
        nonlocal failed
        failed += not ok
        print(f"self-test {name}: {'ok' if ok else 'FAILED ' + detail}")

    with tempfile.TemporaryDirectory() as tmp:
        for name, (files, expected) in SELF_TESTS.items():
            crate_dir = write_crate(Path(tmp) / name, files)
            found, _ = check(crate_dir, quiet=True, use_known=False)
            report(name, sorted(found) == sorted(expected), f"expected {expected}, found {found}")
            if sorted(found) != sorted(expected):
                check(crate_dir, show_edges=True)

        # KNOWN_CYCLES: a listed cycle passes; an unlisted one fails; a stale entry fails.
        crate_dir = write_crate(Path(tmp) / "known", SELF_TESTS["quote_in_doc_comment"][0])
        KNOWN_CYCLES["known"] = {"a -> b -> a": "listed"}
        listed = check(crate_dir, quiet=True)
        KNOWN_CYCLES["known"] = {"a -> c -> a": "stale"}
        stale = check(crate_dir, quiet=True)
        del KNOWN_CYCLES["known"]
        report("known_cycles", listed == ([], 0) and stale == ([["a", "b", "a"]], 1), f"{listed} {stale}")

        # LAYERS: a -> b passes with a above b; fails with b above a, or with a in no layer.
        files = {"lib.rs": "mod a;\nmod b;\n", "a.rs": "fn f() { crate::b::g() }\n", "b.rs": "pub fn g() {}\n"}
        crate_dir = write_crate(Path(tmp) / "layered", files)
        outcomes = []
        for order in ([["crate", "a"], ["b"]], [["crate", "b"], ["a"]], [["crate"], ["b"]]):
            LAYERS["layered"] = order
            with open(os.devnull, "w") as null:
                saved, sys.stdout = sys.stdout, null
                try:
                    outcomes.append(check(crate_dir, layers=True)[1])
                finally:
                    sys.stdout = saved
        del LAYERS["layered"]
        report("layers", outcomes == [0, 1, 1], str(outcomes))

    # Which cfg attributes keep an item out of the crate.
    cfgs = {
        "cfg(test)": True,
        'cfg(all(test, feature = "x"))': True,
        "cfg(any(test, all(test, x)))": True,
        'cfg(any(test, feature = "x"))': False,
        "cfg(not(test))": False,
        "cfg(all(not(test), x))": False,
        'cfg(feature = "test")': False,
        "cfg_attr(test, allow(x))": False,
    }
    wrong = [a for a, want in cfgs.items() if is_cfg_test(lex(a)) != want]
    report("cfg_test", not wrong, str(wrong))

    # The lexer alone: what survives of tricky literals.
    toks = [t.text for t in lex('a /* x /* y */ z */ b "c // d" r#"e "f" // g"# \'h\' \'i j \'\\\'\' k')]
    report("lexer", toks == ["a", "b", "c // d", 'e "f" // g', "'h'", "'i", "j", "'\\''", "k"], repr(toks))
    return 1 if failed else 0


def main(argv):
    if "--self-test" in argv:
        return self_test()
    show_edges = "--edges" in argv
    layers = "--layers" in argv
    dirs = [a for a in argv if not a.startswith("--")] or [str(ROOT / c) for c in CRATES]
    status = 0
    for d in dirs:
        found, bad = check(d, show_edges=show_edges, layers=layers)
        status |= bool(found) or bool(bad)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
