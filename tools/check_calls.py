#!/usr/bin/env python3
"""check_calls.py: the call rule of sim/ (docs/architecture.md), run by tools/check-layers.sh.

A file calls another when it names a function (or a global) that the other defines without
`static`.  With those calls as edges between the .c files of sim/, no circle may exist: not between
files of different folders (a lower layer reaches an upper one only through a hook or an ops table,
which is a pointer, not a name) and not between files of one folder either (files of a room that
share internals put them in one file of the room that the others call, declared in the room's own
small header).  The names are read from the text (comments, strings and preprocessor lines left
out), so a call through a function pointer is no edge, as it should not be.

usage: check_calls.py [--allowed FILE] SIM_DIR   exit 0 when no circle, 1 with one line per circle
       check_calls.py --edges SIM_DIR              print the edges "caller callee: names", for a look

--allowed FILE names circles inside one folder that are known debt, one per line: the files of the
circle (folder/name.c, in any order), then "#" and the reason.  A circle across folders is never
allowed, and a listed circle that no longer exists is a breach (take it off the list).
"""
import os
import re
import sys

IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a name used, not a member (".name", "->name") of a struct
USE = re.compile(r"(?<![.>\w])([A-Za-z_][A-Za-z0-9_]*)")
KEYWORDS = {"main", "if", "while", "for", "switch", "return", "sizeof", "_Alignof", "_Static_assert",
            "defined", "__attribute__", "__typeof__", "typeof"}


def strip(text):
    """The text with comments, string and character literals and preprocessor lines blanked."""
    out = []
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            # a preprocessor line, with its continuations
            while i < n and text[i] != "\n":
                if text[i] == "\\" and i + 1 < n and text[i + 1] == "\n":
                    i += 2
                    out.append("\n")
                    continue
                i += 1
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append("\n" * text.count("\n", i, j))
            i = j
            continue
        if c == "/" and i + 1 < n and text[i + 1] == "/":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if c in "\"'":
            q = c
            i += 1
            while i < n and text[i] != q:
                i += 2 if text[i] == "\\" else 1
            i += 1
            out.append(" 0 ")
            continue
        if c == "\n":
            at_line_start = True
        elif not c.isspace():
            at_line_start = False
        out.append(c)
        i += 1
    return "".join(out)


def definitions(code):
    """Names this file defines without static: functions, and globals with an initializer or not."""
    names = set()
    depth = 0
    stmt = []  # the text of the current top-level declaration
    i, n = 0, len(code)
    while i < n:
        c = code[i]
        if c == "{":
            if depth == 0:
                decl = "".join(stmt)
                m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\([^()]*(\([^()]*\)[^()]*)*\)\s*$", decl)
                is_fn = m is not None and "=" not in decl
                words = set(IDENT.findall(decl))
                if is_fn and "static" not in words and m.group(1) not in KEYWORDS:
                    names.add(m.group(1))
                elif not is_fn and "=" in decl and "static" not in words and "extern" not in words:
                    g = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])*\s*=\s*$", decl)
                    if g and not decl.lstrip().startswith(("typedef", "struct", "enum", "union")) \
                            or (g and re.match(r"\s*(const\s+)?(struct|enum|union)\s+\w+\s+\**\s*\w", decl)):
                        names.add(g.group(1))
                stmt = []
            depth += 1
        elif c == "}":
            depth -= 1
            if depth == 0:
                stmt = []
        elif depth == 0:
            if c == ";":
                decl = "".join(stmt)
                words = set(IDENT.findall(decl))
                if "=" in decl and "(" not in decl.split("=")[0] and "static" not in words \
                        and "extern" not in words and "typedef" not in words:
                    g = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*(\[[^\]]*\])*\s*=", decl)
                    if g:
                        names.add(g.group(1))
                stmt = []
            else:
                stmt.append(c)
        i += 1
    return names


def read_tree(sim):
    files = {}
    for folder in sorted(os.listdir(sim)):
        path = os.path.join(sim, folder)
        if not os.path.isdir(path):
            continue
        for name in sorted(os.listdir(path)):
            if name.endswith(".c"):
                with open(os.path.join(path, name), encoding="utf-8", errors="replace") as f:
                    files[folder + "/" + name] = strip(f.read())
    return files


def edges_of(files):
    owner = {}
    for f, code in files.items():
        for name in definitions(code):
            owner.setdefault(name, f)
    edges = {f: {} for f in files}
    for f, code in files.items():
        for name in set(USE.findall(code)):
            g = owner.get(name)
            if g is not None and g != f:
                edges[f].setdefault(g, set()).add(name)
    return edges


def circles(edges):
    """Tarjan's strongly connected components of more than one file."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def read_allowed(path):
    allowed = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            files, _, reason = line.partition("#")
            names = files.split()
            if not names:
                continue
            if not reason.strip():
                raise SystemExit(f"{path}:{n}: an allowed circle needs its reason after '#'")
            allowed.append((n, frozenset(names)))
    return allowed


def main(argv):
    args = argv[1:]
    show = bool(args) and args[0] == "--edges"
    if show:
        args = args[1:]
    allowed, allowed_path = [], None
    if len(args) == 3 and args[0] == "--allowed":
        allowed_path = args[1]
        allowed = read_allowed(allowed_path)
        args = args[2:]
    if len(args) != 1:
        sys.stderr.write(__doc__)
        return 2
    edges = edges_of(read_tree(args[0]))
    if show:
        for f in sorted(edges):
            for g in sorted(edges[f]):
                print(f"{f} {g}: {' '.join(sorted(edges[f][g]))}")
        return 0
    bad = 0
    found = circles(edges)
    known = 0
    for comp in found:
        folders = sorted({c.split("/")[0] for c in comp})
        if len(folders) == 1 and any(names == frozenset(comp) for _, names in allowed):
            known += 1
            continue
        kind = "across folders " + ", ".join(folders) if len(folders) > 1 else "inside " + folders[0] + "/"
        print(f"call circle {kind}: {' '.join(comp)}")
        inside = set(comp)
        for f in comp:
            for g in sorted(edges[f]):
                if g in inside:
                    print(f"  {f} -> {g}: {' '.join(sorted(edges[f][g])[:6])}")
        bad = 1
    for n, names in allowed:
        if not any(names == frozenset(comp) for comp in found):
            print(f"{allowed_path}:{n}: the circle {' '.join(sorted(names))} no longer exists: take it off the list")
            bad = 1
    if not bad:
        n = sum(len(e) for e in edges.values())
        extra = f" ({known} inside a room, listed as debt)" if known else ""
        print(f"calls: {len(edges)} files, {n} file-to-file call edges, no call circle across folders{extra}")
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))
