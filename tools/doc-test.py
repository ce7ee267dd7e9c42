#!/usr/bin/env python3
"""doc-test.py: run every shell command README.md and docs/**/*.md show, in a
copy of the tree, and check that each exits 0 (or as its marker says); and,
before that, check the docs against the tree for the kinds of drift that
have happened (the drift checks, below).

Run by `make test` (suite `docs`, tests/test_docs.c); the rules are in
docs/doc-test.md.  In short:

  * Every fenced code block names its language.  ```sh, ```bash and
    ```shell blocks are commands, one a line (a line ending in `\\` goes on
    on the next; `#` comments and a leading `$ ` prompt are dropped).  In
    ```console blocks, the lines starting with `$ ` are commands and the
    others their output: those lines (less `...` lines) must appear in
    order among the lines the command prints (as a terminal shows them, or
    stdout's before stderr's).  Any other language is not run.
  * Markers, in the markdown source, never silent:
      <!-- doc-test: skip (reason) -->   before a block: none of it runs
      <!-- doc-test: timeout N -->       before a block: N s per command (default 120)
      <!-- doc-test: expect-exit N -->   before a block: each command must exit N
      <!-- doc-test: file PATH -->       before a block: its text becomes file PATH
      <!-- doc-test: run COMMAND -->     a command of its own, not shown
      COMMAND  # doc-test: skip (reason)       this line does not run
      COMMAND  # doc-test: expect-exit N       it must exit N
      COMMAND  # doc-test: timeout N           N s for it
    A skip without a reason, an unknown marker or a block marker that is
    not followed by a block is an error.
  * Each markdown file runs in a fresh copy of the tree (the files git
    tracks, plus the built build/ folder) with build/ first in PATH (so
    `servesim` is the built binary), HOME a fresh empty folder, stdin
    /dev/null, LC_ALL=C.UTF-8 and no make or servesim variables from the
    caller.  Within one file the commands run in order and the working
    folder and exported variables carry over from one to the next; each is
    named on stderr as it starts ([k/N] file:line: command).
  * The drift checks (run with every page, or alone with --drift; --root
    checks another copy of the tree): every page under docs/ is linked from
    docs/README.md; every relative link of README.md and docs/ reaches a
    file; nothing in README.md or docs/ points into ../shared (the docs
    stand alone: cite the publication); docs/plugins.md's policy table
    names every policies/*.c plugin (with the kind `servesim plugins`
    gives it) and no other, names every SS_KIND_ of
    include/servesim/policy.h, and its ABI history reaches SS_POLICY_ABI.

Usage: tools/doc-test.py [--build DIR] [--list] [--keep] [--drift] [--root DIR] [FILE.md ...]
Exit status: 0 all passed, 1 a command failed or the docs drifted, 2 bad
markup or usage.
"""

import argparse
import glob
import os
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN_LANGS = {"sh", "bash", "shell"}
CONSOLE = "console"
DEFAULT_TIMEOUT_S = 120
FENCE = re.compile(r"^\s*(```+|~~~+)\s*([^\s`]*)")
BLOCK_MARKER = re.compile(r"^\s*<!--\s*doc-test:\s*(.*?)\s*-->\s*$")
LINE_MARKER = re.compile(r"doc-test:\s*(.*)$")
SCRUB_ENV = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES", "TESTS", "SERVESIM_PLUGIN_PATH")


class Markup(Exception):
    """Bad doc-test markup: file:line: message."""


class Command:
    def __init__(self, where, text, timeout_s=DEFAULT_TIMEOUT_S):
        self.where = where          # "docs/foo.md:123"
        self.text = text            # the command, one line (continuations joined)
        self.timeout_s = timeout_s
        self.expect_exit = 0
        self.skip = None            # reason, or None
        self.file_text = None       # for a `file PATH` block: the text to write to PATH
        self.shown = []             # console output shown: lines it must print, in order


def parse_marker(text, where):
    """(verb, argument) of a marker's text: skip (reason), timeout N, ..."""
    m = re.match(r"(skip|timeout|expect-exit|file|run)\b\s*(.*)$", text)
    if not m:
        raise Markup(f"{where}: unknown doc-test marker '{text}' (skip, timeout, expect-exit, file, run)")
    verb, arg = m.group(1), m.group(2).strip()
    if verb == "skip":
        r = re.match(r"\((.*\S.*)\)$", arg)
        if not r:
            raise Markup(f"{where}: doc-test: skip needs a reason in parentheses: skip (why)")
        return verb, r.group(1)
    if verb in ("timeout", "expect-exit"):
        if not re.match(r"\d+$", arg):
            raise Markup(f"{where}: doc-test: {verb} needs a whole number, got '{arg}'")
        return verb, int(arg)
    if not arg:
        raise Markup(f"{where}: doc-test: {verb} needs an argument")
    return verb, arg


def split_comment(line):
    """(code, comment) of a shell line: the comment is from the first `#`
    that starts a word outside quotes (None if there is none)."""
    quote, i = None, 0
    while i < len(line):
        c = line[i]
        if c == "\\" and quote != "'":
            i += 1  # the next character is escaped
        elif quote:
            quote = None if c == quote else quote
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t;"):
            return line[:i].rstrip(), line[i + 1:]
        i += 1
    return line.rstrip(), None


def join_continued(lines):
    """(first line number index, joined text) of lines with `\\` continuations."""
    out, cur, start = [], None, 0
    for i, line in enumerate(lines):
        if cur is None:
            cur, start = line, i
        else:
            cur = cur[:-1].rstrip() + " " + line.strip()
        if cur.rstrip().endswith("\\"):
            cur = cur.rstrip()
            continue
        out.append((start, cur))
        cur = None
    if cur is not None:
        out.append((start, cur))
    return out


def block_commands(path, first, lang, body, timeout_s):
    """Commands of a block whose first body line is line `first` of path."""
    shown = {}
    if lang == CONSOLE:
        picked, i = [], 0
        while i < len(body):
            if body[i].lstrip().startswith("$ "):
                chunk = [body[i].lstrip()[2:]]
                while chunk[-1].rstrip().endswith("\\") and i + 1 < len(body):
                    i += 1
                    chunk.append(body[i])
                picked.append((i - len(chunk) + 1, " ".join(c.rstrip().rstrip("\\").strip() for c in chunk)))
            elif picked and body[i].strip() != "...":
                shown.setdefault(picked[-1][0], []).append(body[i].rstrip())
            i += 1
    else:
        picked = join_continued(body)
    cmds = []
    for idx, text in picked:
        where = f"{path}:{first + idx}"
        if text.lstrip().startswith("$ "):
            text = text.lstrip()[2:]
        code, comment = split_comment(text.strip())
        if not code:
            continue
        cmd = Command(where, code, timeout_s)
        cmd.shown = shown.get(idx, [])
        m = LINE_MARKER.search(comment or "")
        if m:
            verb, arg = parse_marker(m.group(1).strip(), where)
            if verb == "skip":
                cmd.skip = arg
            elif verb == "timeout":
                cmd.timeout_s = arg
            elif verb == "expect-exit":
                cmd.expect_exit = arg
            else:
                raise Markup(f"{where}: doc-test: {verb} is a block marker (<!-- doc-test: {verb} ... -->)")
        cmds.append(cmd)
    return cmds


def extract(path, rel):
    """Every Command of one markdown file, in order.  Raises Markup."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    cmds, pending, i = [], [], 0
    while i < len(lines):
        n = i + 1
        m = BLOCK_MARKER.match(lines[i])
        if m:
            verb, arg = parse_marker(m.group(1), f"{rel}:{n}")
            if verb == "run":
                cmds.append(Command(f"{rel}:{n}", arg))
            else:
                pending.append((verb, arg, n))
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if lines[i].strip() and pending:
                raise Markup(f"{rel}:{pending[0][2]}: doc-test marker not followed by a code block")
            i += 1
            continue
        fence, lang = f.group(1), f.group(2).lower()
        end = i + 1
        while end < len(lines) and not re.match(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), lines[end]):
            end += 1
        if end == len(lines):
            raise Markup(f"{rel}:{n}: code block not closed")
        if not lang:
            raise Markup(f"{rel}:{n}: code block without a language: tag it sh or console (commands: "
                         f"doc-test runs them) or text, yaml, c ... (not run)")
        cmds.extend(block_to_commands(rel, n, lang, lines[i + 1:end], pending))
        pending, i = [], end + 1
    if pending:
        raise Markup(f"{rel}:{pending[0][2]}: doc-test marker not followed by a code block")
    return cmds


def block_to_commands(rel, n, lang, body, markers):
    """The commands of one block under its markers."""
    opts = {verb: arg for verb, arg, _ in markers}
    if "file" in opts:
        cmd = Command(f"{rel}:{n}", f"(write {opts['file']})")
        cmd.file_text = (opts["file"], "\n".join(body) + "\n")
        return [cmd]
    if lang not in RUN_LANGS and lang != CONSOLE:
        if opts:
            raise Markup(f"{rel}:{n}: doc-test marker on a '{lang}' block, which is not run anyway")
        return []
    cmds = block_commands(rel, n + 1, lang, body, opts.get("timeout", DEFAULT_TIMEOUT_S))
    for c in cmds:
        c.skip = opts.get("skip", c.skip)
        c.expect_exit = opts.get("expect-exit", c.expect_exit)
    return cmds


def copy_tree(dest, build):
    """The files git tracks (or, outside git, the tree less .git and build/),
    and the build folder as build/, with their times (make sees them built)."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                                cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        listed = None
    if listed is None:
        shutil.copytree(ROOT, dest, symlinks=True, ignore=shutil.ignore_patterns(".git", "build"))
    else:
        for rel in filter(None, listed):
            src = os.path.join(ROOT, rel)
            if not os.path.lexists(src):
                continue  # deleted in the working tree
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel), follow_symlinks=False)
    nested = lambda d, names: [x for x in names if os.path.exists(os.path.join(d, x, "libservesim.a"))]
    shutil.copytree(build, os.path.join(dest, "build"), symlinks=True, dirs_exist_ok=True, ignore=nested)


def base_env(tree, home):
    env = {k: v for k, v in os.environ.items() if k not in SCRUB_ENV}
    env["PATH"] = os.path.join(tree, "build") + os.pathsep + env.get("PATH", "/usr/bin:/bin")
    env["HOME"] = home
    # The output the docs show is servesim's under a UTF-8 locale (its tables' +/- sign is
    # ASCII under any other), whatever the caller's; C.UTF-8 sorts as C does.
    env["LC_ALL"] = "C.UTF-8"
    return env


# One command in bash: the state (working folder, exported variables) of the
# file's commands so far comes in, and goes out for the next one.
WRAPPER = """
. "$DOC_TEST_STATE"
{cmd}
__doc_test_rc=$?
{{ export -p | grep -v -e ' DOC_TEST_STATE=' -e ' OLDPWD=' -e ' PWD=' -e ' SHLVL=' -e ' _='; printf 'cd %q\\n' "$PWD"; }} \
    > "$DOC_TEST_STATE.new" && mv "$DOC_TEST_STATE.new" "$DOC_TEST_STATE"
exit $__doc_test_rc
"""


def script_of(cmd):
    """What bash runs for a command: itself, or for a `file PATH` block a
    here-document into PATH (expanded where the commands are: `~` is HOME)."""
    if not cmd.file_text:
        return cmd.text
    path, text = cmd.file_text
    return f"mkdir -p \"$(dirname {path})\" && cat > {path} <<'DOC_TEST_EOF'\n{text}DOC_TEST_EOF"


def missing_line(shown, printed):
    """The first shown line not found, in order, among the printed ones."""
    lines = iter(l.rstrip() for l in printed.split("\n"))
    for want in shown:
        if not any(l == want for l in lines):
            return want
    return None


def communicate(p, timeout_s):
    """(stdout, stderr, both in the order they came, timed out) of a
    process; after timeout_s its group is killed and what it wrote returned."""
    out, err, both = [], [], []
    sel = selectors.DefaultSelector()
    sel.register(p.stdout, selectors.EVENT_READ, out)
    sel.register(p.stderr, selectors.EVENT_READ, err)
    deadline = time.monotonic() + timeout_s
    while sel.get_map():
        left = deadline - time.monotonic()
        if left <= 0:
            os.killpg(p.pid, signal.SIGKILL)
            rest_out, rest_err = p.communicate()
            out.append(rest_out)
            err.append(rest_err)
            return b"".join(out), b"".join(err), b"".join(both), True
        for key, _ in sel.select(timeout=left):
            chunk = os.read(key.fileobj.fileno(), 65536)
            if not chunk:
                sel.unregister(key.fileobj)
                continue
            key.data.append(chunk)
            both.append(chunk)
    p.wait()
    return b"".join(out), b"".join(err), b"".join(both), False


def run_one(cmd, state, env):
    """(exit status or None on timeout, output tail, first shown line it
    did not print) of one command.  The lines shown may come in the order a
    terminal shows them (stdout and stderr as they came) or stdout's first."""
    p = subprocess.Popen(["bash", "--noprofile", "--norc", "-c", WRAPPER.format(cmd=script_of(cmd))],
                         env=dict(env, DOC_TEST_STATE=state), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    out, err, both, timed_out = communicate(p, cmd.timeout_s)
    rc = None if timed_out else p.returncode
    out, err, both = (b.decode(errors="replace") for b in (out, err, both))
    text = err.strip() or out.strip()
    missing = missing_line(cmd.shown, out + "\n" + err)
    if missing is not None and missing_line(cmd.shown, both) is None:
        missing = None
    return rc, "\n".join(text.split("\n")[-12:]), missing


def run_file(rel, cmds, build, keep, tmp, count):
    """Run one markdown file's commands in a fresh copy, naming each on
    stderr as it starts ([k/N] file:line: command; count = [k, N]); the
    failures."""
    top = tempfile.mkdtemp(prefix="doc-test-", dir=tmp)
    tree, home = os.path.join(top, "tree"), os.path.join(top, "home")
    os.makedirs(home)
    copy_tree(tree, build)
    state = os.path.join(top, "state.sh")
    with open(state, "w") as f:
        f.write(f"cd '{tree}'\n")
    env = base_env(tree, home)
    failed = []
    for c in cmds:
        if c.skip:
            continue
        count[0] += 1
        print(f"doc-test: [{count[0]}/{count[1]}] {c.where}: {c.text}", file=sys.stderr, flush=True)
        t0 = time.monotonic()
        rc, tail, missing = run_one(c, state, env)
        took = time.monotonic() - t0
        if rc == c.expect_exit and missing is not None:
            failed.append(f"{c.where}: {c.text}: its output has no line (in the order shown)\n    {missing}\n")
        elif rc != c.expect_exit:
            how = f"timed out after {c.timeout_s} s" if rc is None else f"exit {rc}"
            if c.expect_exit:
                how += f" (expected {c.expect_exit})"
            failed.append(f"{c.where}: {c.text}: {how}\n" + "".join(f"    {l}\n" for l in tail.split("\n") if l))
        elif took > 30:
            print(f"doc-test: {c.where}: slow ({took:.0f} s): {c.text}", file=sys.stderr)
    if keep:
        print(f"doc-test: {rel} ran in {tree} (kept)", file=sys.stderr)
    else:
        shutil.rmtree(top, ignore_errors=True)
    return failed


def doc_pages(root):
    """Every markdown page under docs/, at any depth, sorted."""
    return sorted(glob.glob(os.path.join(root, "docs", "**", "*.md"), recursive=True))


def doc_files(args):
    if args.files:
        return [os.path.abspath(f) for f in args.files]
    return [os.path.join(ROOT, "README.md")] + doc_pages(ROOT)


# ---- drift: the docs against the tree -------------------------------------

# Pages the ../shared check passes over, each with its reason (printed with --drift):
# a visible decision, as a skip marker is.  Remove an entry as soon as it can go.
SHARED_EXEMPT = {}
LINK = re.compile(r"\]\(([^)\s]+)\)")
SHARED = re.compile(r"(?:\.\./)+shared\b|/work/shared\b")


def prose(path):
    """The lines of a markdown file outside its code blocks, numbered from 1."""
    out, fence = [], None
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f.read().split("\n"), 1):
            m = FENCE.match(line)
            if m and fence is None:
                fence = m.group(1)
            elif fence is not None and re.match(r"^\s*" + re.escape(fence[0]) + "{%d,}\\s*$" % len(fence), line):
                fence = None
            elif fence is None:
                out.append((n, line))
    return out


def links(path):
    """(line, target) of every relative link of a markdown file, less its #anchor."""
    found = []
    for n, line in prose(path):
        for t in LINK.findall(line):
            if re.match(r"[a-z][a-z0-9+.-]*:", t) or t.startswith("#"):
                continue  # a URL (https:, mailto:) or an anchor on the same page
            found.append((n, t.split("#")[0]))
    return found


def plugin_kinds(build):
    """{name: kind} as `servesim plugins` of the build lists them ({} without a build)."""
    exe = os.path.join(build, "servesim")
    if not os.path.exists(exe):
        return {}
    env = {k: v for k, v in os.environ.items() if k not in SCRUB_ENV}
    p = subprocess.run([exe, "plugins"], capture_output=True, text=True, env=env)
    return {m.group(1): m.group(2) for m in re.finditer(r"(?m)^(\S+)\s+(\S+)\s+\d+\s", p.stdout)}


def drift(root, build):
    """What in the docs no longer matches the tree at root: a list of messages."""
    bad = []
    rel = lambda p: os.path.relpath(p, root)
    index = os.path.join(root, "docs", "README.md")
    pages = doc_pages(root)
    everything = [os.path.join(root, "README.md")] + pages
    # 1. Every page is reachable from the index, and every relative link lands.
    linked = set()
    if os.path.exists(index):
        linked = {os.path.normpath(os.path.join(root, "docs", t)) for _, t in links(index)}
    else:
        bad.append("docs/README.md: missing (the index of the docs)")
    for p in pages:
        if p != index and os.path.normpath(p) not in linked:
            bad.append(f"{rel(p)}: not linked from docs/README.md (add it to the index, with one line)")
    for p in everything:
        for n, t in links(p):
            if not os.path.exists(os.path.normpath(os.path.join(os.path.dirname(p), t))):
                bad.append(f"{rel(p)}:{n}: link to '{t}', which is not there")
    # 2. The docs stand alone: no path into ../shared (cite the publication instead).
    for p in [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "**", "*"), recursive=True)):
        if not os.path.isfile(p) or rel(p) in SHARED_EXEMPT:
            continue
        try:
            with open(p, encoding="utf-8") as f:
                text = f.read()
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.split("\n"), 1):
            m = SHARED.search(line)
            if m:
                bad.append(f"{rel(p)}:{n}: '{m.group(0)}': the docs must not point outside the repository "
                           f"(cite the publication; docs/README.md lists them)")
    # 3. docs/plugins.md against the plugins and the ABI.
    plugins_md = os.path.join(root, "docs", "plugins.md")
    header = os.path.join(root, "include", "servesim", "policy.h")
    if not os.path.exists(plugins_md) or not os.path.exists(header):
        bad.append("docs/plugins.md or include/servesim/policy.h: missing")
        return bad
    lines = prose(plugins_md)
    table = {}
    for n, line in lines:
        m = re.match(r"^\|\s*`([a-z0-9][a-z0-9_-]*)`\s*\|\s*([a-z_]+)\s*\|", line)
        if m:
            table[m.group(1)] = (n, m.group(2))
    shipped = sorted(os.path.splitext(os.path.basename(c))[0] for c in glob.glob(os.path.join(root, "policies", "*.c")))
    kinds = plugin_kinds(build)
    for name in shipped:
        if name not in table:
            bad.append(f"docs/plugins.md: the policy table lacks '{name}' (policies/{name}.c)")
        elif name in kinds and table[name][1] != kinds[name]:
            bad.append(f"docs/plugins.md:{table[name][0]}: '{name}' is a {kinds[name]} (servesim plugins), "
                       f"the table says {table[name][1]}")
    for name, (n, _) in sorted(table.items()):
        if name not in shipped:
            bad.append(f"docs/plugins.md:{n}: the policy table names '{name}', which policies/ does not ship")
    with open(header, encoding="utf-8") as f:
        h = f.read()
    text = "\n".join(line for _, line in lines)
    for kind in sorted(set(re.findall(r"\b(SS_KIND_[A-Z_]+)\b", h))):
        if kind not in text:
            bad.append(f"docs/plugins.md: {kind} (include/servesim/policy.h) is not described")
    m = re.search(r"#define\s+SS_POLICY_ABI\s+(\d+)", h)
    abi = int(m.group(1)) if m else None
    history, inside = [], False
    for n, line in lines:
        if re.match(r"^#+\s", line):
            inside = bool(re.match(r"^#+\s+ABI history\b", line))
        elif inside:
            r = re.match(r"^\|\s*(\d+)\s*\|", line)
            if r:
                history.append(int(r.group(1)))
    if abi is None:
        bad.append("include/servesim/policy.h: no #define SS_POLICY_ABI")
    elif history != list(range(1, abi + 1)):
        got = f"{history[0]}..{history[-1]}" if history else "nothing"
        bad.append(f"docs/plugins.md: its 'ABI history' table runs {got}, "
                   f"include/servesim/policy.h says SS_POLICY_ABI {abi} (one row per ABI, 1 to {abi})")
    return bad


def main():
    ap = argparse.ArgumentParser(description="Run every command README.md and docs/**/*.md show, and check the docs "
                                             "for drift (docs/doc-test.md).")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the built folder to copy as build/")
    ap.add_argument("--list", action="store_true", help="list the commands and skips, run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the copies (their paths are printed)")
    ap.add_argument("--drift", action="store_true", help="only the drift checks, run no command")
    ap.add_argument("--root", default=ROOT, help="with --drift: the tree to check (default: this one)")
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md docs/**/*.md and the drift checks)")
    args = ap.parse_args()
    drifted = []
    if args.drift or (not args.files and not args.list):
        drifted = drift(os.path.abspath(args.root), os.path.abspath(args.build))
        for d in drifted:
            print(f"doc-test: drift: {d}", file=sys.stderr)
        for page, why in sorted(SHARED_EXEMPT.items()):
            print(f"doc-test: drift: {page}: not checked for ../shared ({why})", file=sys.stderr)
        if args.drift:
            print(f"doc-test: drift checks: {len(drifted)} found", file=sys.stderr)
            return 1 if drifted else 0
    per_file = []
    try:
        for path in doc_files(args):
            rel = os.path.relpath(path, ROOT)
            rel = path if rel.startswith("..") else rel
            per_file.append((rel, extract(path, rel)))
    except (Markup, OSError) as e:
        print(f"doc-test: {e}", file=sys.stderr)
        return 2
    everything = [c for _, cmds in per_file for c in cmds]
    skipped = [c for c in everything if c.skip]
    if args.list:
        for c in everything:
            print(f"{c.where}: " + (f"[skip: {c.skip}] " if c.skip else "") + c.text)
        print(f"{len(everything) - len(skipped)} to run, {len(skipped)} skipped")
        return 0
    if not os.path.exists(os.path.join(args.build, "servesim")):
        print(f"doc-test: no {args.build}/servesim: build first (make build)", file=sys.stderr)
        return 2
    t0 = time.monotonic()
    failed, count = [], [0, len(everything) - len(skipped)]
    for rel, cmds in per_file:
        if any(not c.skip for c in cmds):
            failed += run_file(rel, cmds, os.path.abspath(args.build), args.keep, os.environ.get("TMPDIR"), count)
    for c in skipped:
        print(f"doc-test: {c.where}: skipped ({c.skip}): {c.text}", file=sys.stderr)
    for f in failed:
        sys.stderr.write(f)
    for d in drifted:
        print(f"doc-test: drift: {d}", file=sys.stderr)
    ran = len(everything) - len(skipped)
    print(f"doc-test: {ran} commands run, {ran - len(failed)} passed, {len(failed)} failed, {len(skipped)} skipped"
          + (f", {len(drifted)} drift problems" if drifted else "") + f" ({time.monotonic() - t0:.0f} s)",
          file=sys.stderr)
    return 1 if failed or drifted else 0


if __name__ == "__main__":
    sys.exit(main())
