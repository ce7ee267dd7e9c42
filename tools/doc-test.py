#!/usr/bin/env python3
"""doc-test.py: run every shell command README.md and docs/*.md show, in a
copy of the tree, and check that each exits 0 (or as its marker says).

Run by `make test` (suite `docs`, tests/test_docs.c); the rules are in
docs/doc-test.md.  In short:

  * Every fenced code block names its language.  ```sh, ```bash and
    ```shell blocks are commands, one a line (a line ending in `\\` goes on
    on the next; `#` comments and a leading `$ ` prompt are dropped).  In
    ```console blocks, the lines starting with `$ ` are commands and the
    others their output: those lines (less `...` lines) must appear in
    order among the lines the command prints.  Any other language is not run.
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
    /dev/null and no make or servesim variables from the caller.  Within
    one file the commands run in order and the working folder and exported
    variables carry over from one to the next.

Usage: tools/doc-test.py [--build DIR] [--list] [--keep] [FILE.md ...]
Exit status: 0 all passed, 1 a command failed, 2 bad markup or usage.
"""

import argparse
import glob
import os
import re
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


def run_one(cmd, state, env):
    """(exit status or None on timeout, output tail, first shown line it
    did not print) of one command."""
    p = subprocess.Popen(["bash", "--noprofile", "--norc", "-c", WRAPPER.format(cmd=script_of(cmd))],
                         env=dict(env, DOC_TEST_STATE=state), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        out, err = p.communicate(timeout=cmd.timeout_s)
        rc = p.returncode
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        rc = None
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    text = err.strip() or out.strip()
    return rc, "\n".join(text.split("\n")[-12:]), missing_line(cmd.shown, out + "\n" + err)


def run_file(rel, cmds, build, keep, tmp):
    """Run one markdown file's commands in a fresh copy; the failures."""
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


def doc_files(args):
    if args.files:
        return [os.path.abspath(f) for f in args.files]
    return [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))


def main():
    ap = argparse.ArgumentParser(description="Run every command README.md and docs/*.md show (docs/doc-test.md).")
    ap.add_argument("--build", default=os.path.join(ROOT, "build"), help="the built folder to copy as build/")
    ap.add_argument("--list", action="store_true", help="list the commands and skips, run nothing")
    ap.add_argument("--keep", action="store_true", help="keep the copies (their paths are printed)")
    ap.add_argument("files", nargs="*", help="markdown files (default: README.md docs/*.md)")
    args = ap.parse_args()
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
    failed = []
    for rel, cmds in per_file:
        if any(not c.skip for c in cmds):
            failed += run_file(rel, cmds, os.path.abspath(args.build), args.keep, os.environ.get("TMPDIR"))
    for c in skipped:
        print(f"doc-test: {c.where}: skipped ({c.skip}): {c.text}", file=sys.stderr)
    for f in failed:
        sys.stderr.write(f)
    ran = len(everything) - len(skipped)
    print(f"doc-test: {ran} commands run, {ran - len(failed)} passed, {len(failed)} failed, {len(skipped)} skipped "
          f"({time.monotonic() - t0:.0f} s)", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
