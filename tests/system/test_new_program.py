"""Writing your own program (docs/programs.md): a program made from the
template by tools/new-program, built by the tree's make, put into a
powered-off image by `make install` while another program keeps running,
and run from osh after the next power-on; then put in live over the host
link (tools/fe) under another name and run at once.

The template goes into the source tree (user/bin/NAME.c, the only place the
tree's make builds programs from) under a name of this test's own, and is
removed whatever the test's outcome. It is built into a build directory of
the test's own (make BUILD=DIR), a copy of what `make install` needs from
build/ with its times kept, so that make finds all of that up to date and
builds only the new program: in build/user/bin, every other test's machine
(they run side by side) would take it for a boot module, and one starting
just as it is removed would fail to load it.
"""

import os
import re
import shutil
import subprocess

from ferrite import BACKGROUND_LINE, PROMPT, ROOT

NEW_PROGRAM = os.path.join(ROOT, "tools", "new-program")
STEP = 120


def run(*args):
    """args in the tree, without the flags of a make this test runs under
    (make -s test would make the build below silent)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    return subprocess.run(list(args), cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env=env)



def expect_lines(m, lines, start):
    """Each of `lines` (patterns) as a whole line, in this order, from
    `start`: the counter running beside them may print its numbers between
    any two (whole lines: it never splits one of a program's). The echo of
    a typed command is not matched: osh echoes as it reads, and a number
    may land inside it."""
    for line in lines:
        start = m.expect(r"^(?:osh> )?%s\n" % line, timeout=STEP, start=start).end()

def private_build(tmp_path):
    """A build directory with copies of build/'s user space and objtool
    (with what it is made of), times kept: BUILD=DIR for make."""
    build = tmp_path / "build"
    for part in ("user", "host"):
        shutil.copytree(os.path.join(ROOT, "build", part), build / part, symlinks=True)
    shutil.copy2(os.path.join(ROOT, "build", "objtool"), build / "objtool")
    return build


def test_template_built_installed_and_run(machines, tmp_path):
    name = "tmpl%d" % os.getpid()
    source = os.path.join(ROOT, "user", "bin", name + ".c")
    build = private_build(tmp_path)
    program = str(build / "user" / "bin" / name)
    try:
        r = run(NEW_PROGRAM, name)
        assert r.returncode == 0 and "wrote user/bin/%s.c" % name in r.stdout, r
        with open(source) as f:
            assert "int main(int argc, char **argv)" in f.read()
        # refused: it exists (untouched), a bad name, no name
        r = run(NEW_PROGRAM, name)
        assert r.returncode == 1 and "exists already" in r.stderr, r
        assert run(NEW_PROGRAM, "Bad!").returncode == 2
        assert run(NEW_PROGRAM, "osh").returncode == 1      # a directory program
        assert run(NEW_PROGRAM).returncode == 2

        r = run("make", "--no-print-directory", "BUILD=%s" % build, program)
        assert r.returncode == 0, r.stdout + r.stderr
        # only the new program was built: the rest was up to date
        built = [line for line in r.stdout.splitlines() if line.startswith("gcc")]
        assert len(built) == 2 and name + ".c" in built[0], r.stdout

        image = tmp_path / "own.nvm"
        m = machines(image=image, size="32M")
        m.expect(PROMPT, timeout=STEP)
        start = len(m.output)
        m.send("counter 1 20 &\n")
        m.expect(r"\[\d+\] started", timeout=STEP, start=start)
        m.expect(BACKGROUND_LINE % 3, timeout=STEP, start=start)
        # refused while QEMU holds the image, which stays as it was
        r = run("make", "--no-print-directory", "BUILD=%s" % build, "install",
                "IMAGE=%s" % image, "PROGRAMS=" + name)
        assert r.returncode != 0 and "in use by a running QEMU" in r.stdout + r.stderr, r
        m.send("poweroff\n")
        assert m.wait_exit(timeout=STEP) == 0
        # the counter's numbers so far (one may share a line with osh's
        # prompt or echo; those the pattern misses only make `seen` lower)
        seen = max(int(n) for n in re.findall(r"^(?:osh> )?(\d+)$", m.output, re.M))

        r = run("make", "--no-print-directory", "BUILD=%s" % build, "install",
                "IMAGE=%s" % image, "PROGRAMS=" + name)
        assert r.returncode == 0 and "install: bin/%s" % name in r.stdout, r
        r = run("make", "--no-print-directory", "BUILD=%s" % build, "install",
                "IMAGE=%s" % image, "PROGRAMS=nosuch")
        assert r.returncode != 0 and "no program nosuch" in r.stdout, r

        m = machines(image=image, size="32M")
        resumed = m.expect(r"ferrite: resumed[^\n]*\n", timeout=STEP)
        start = len(m.output)
        # the counter runs on from where the poweroff left it (a restarted
        # one would begin at 1), counting one by one
        on = m.expect(r"^(?:osh> )?(\d+)\n(?:osh> )?(\d+)\n", timeout=STEP,
                      start=resumed.end())
        first, second = int(on.group(1)), int(on.group(2))
        assert first >= seen and second == first + 1, (seen, first, second)
        m.send("%s world\n" % name)
        expect_lines(m, [r"%s: pid \d+, 1 argument" % name, r"%s: hello, world" % name],
                     start)

        # the other way in: live, over the host link, while the counter runs
        live = name + "live"
        r = run(os.path.join(ROOT, "tools", "fe"), "--image", str(image), "put",
                program, "bin/" + live)
        assert r.returncode == 0 and r.stdout == "" and r.stderr == "", r
        start = len(m.output)
        m.send("%s live\n" % live)
        # (the template's program says its own name, whatever it is run as)
        expect_lines(m, [r"%s: pid \d+, 1 argument" % name, r"%s: hello, live" % name],
                     start)
    finally:
        if os.path.exists(source):
            os.unlink(source)
