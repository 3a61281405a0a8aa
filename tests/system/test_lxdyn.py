"""Dynamic Linux binaries in Ferrite (docs/linux.md, "Dynamic binaries"):
Debian's own binaries, linked against Debian's glibc, run unmodified with
their loader and libraries from the catalogue.

The binaries are the real ones, never stand-ins: tests/linux/hello.c built
by the host's plain gcc (a dynamic PIE), Debian's /usr/bin/sqlite3,
/usr/bin/lua5.4 and /usr/bin/python3.11 (tools/deps.sh). They come in
with `tools/fe put-linux`, over the host link into a running machine and
with --offline into a powered-off image, each with its loader and the
libraries ldd names. Each runs in Ferrite and on the host with the same
arguments, environment and input files, and the two must print the same
bytes and end with the same status. The machines run with the log
checker, and every image is checked by objtool after.
"""

import os
import re
import subprocess

import pytest

import test_linux as L
from ferrite import PROMPT, ROOT

STEP = L.STEP
FE = os.path.join(ROOT, "tools", "fe")
OBJTOOL = L.OBJTOOL
HELLO = os.path.join(L.LINUX, "hello-dynamic")
SQLITE3 = "/usr/bin/sqlite3"
LUA = "/usr/bin/lua5.4"
PYTHON = "/usr/bin/python3.11"
PYTHON_LIB = "/usr/lib/python3.11"
INTERP = "/lib64/ld-linux-x86-64.so.2"

# A SQL script for Debian's sqlite3: tables, an index, a join, aggregates,
# a window function, a recursive CTE, JSON, printf, a transaction rolled
# back, dot-commands for the output's form; its database a catalogue object.
SQL = """\
.headers on
.mode list
create table fruit(name text primary key, colour text, grams integer);
insert into fruit values ('apple', 'red', 150), ('banana', 'yellow', 120),
  ('cherry', 'red', 8), ('date', 'brown', 7), ('elder', 'black', 1);
create table eaten(name text references fruit(name), day integer, n integer);
insert into eaten values ('apple', 1, 2), ('banana', 1, 1), ('apple', 2, 1),
  ('cherry', 2, 30), ('date', 3, 12), ('apple', 3, 3);
create index eaten_by_day on eaten(day);
select colour, count(*) as kinds, sum(grams) as grams from fruit group by colour order by colour;
.mode column
select f.name, sum(e.n) as n, sum(e.n * f.grams) as grams,
  rank() over (order by sum(e.n * f.grams) desc) as rank
  from fruit f join eaten e using (name) group by f.name order by rank, f.name;
.mode list
.headers off
with recursive fib(a, b, i) as (select 0, 1, 0 union all select b, a + b, i + 1 from fib where i < 20)
  select group_concat(a, ',') from fib;
select json_object('name', name, 'grams', grams) from fruit where grams > 100 order by name;
select printf('%-8s|%5.1f%%', name, 100.0 * grams / (select sum(grams) from fruit)) from fruit order by name;
begin;
delete from eaten;
select count(*) from eaten;
rollback;
select count(*) from eaten;
pragma integrity_check;
"""

# A Lua script for Debian's lua5.4: closures, tables, string patterns,
# integer and float arithmetic, coroutines, pcall, os and io.
LUA_SCRIPT = """\
local function counter()
  local n = 0
  return function() n = n + 1; return n end
end
local c = counter(); c(); c()
print("counter", c())
local words = {}
for w in ("the quick brown fox jumps over the lazy dog"):gmatch("%a+") do
  words[#words + 1] = w:upper()
end
table.sort(words)
print(table.concat(words, " "))
print(7 // 2, 7 / 2, 2^10, math.maxinteger, string.format("%5.2f|%x", math.pi, 255))
local co = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i * i) end end)
print("squares", co(), co(), co())
local ok, e = pcall(function() error({code = 42}) end)
print(ok, e.code)
print(select("#", pcall(error)), _VERSION)
local f = assert(io.open("t/lua-out.txt", "w")); f:write("written by lua\\n"); f:close()
for line in io.lines("t/lua-out.txt") do print("read back:", line) end
os.exit(3)
"""

PYTHON_LINE = 'import json; print(json.dumps({"a": 1}))'


def fe(image, *args):
    """tools/fe on the machine (or, with --offline, the image) at `image`."""
    return subprocess.run([FE, "--image", str(image), "--timeout", str(STEP), *args],
                          capture_output=True, text=True, timeout=1200)


def fresh_image(machines, tmp_path, size="128M"):
    """A new image, made by a power-on (genesis) and powered off."""
    image = tmp_path / "dyn.nvm"
    m = machines(image=image, size=size)
    m.expect(PROMPT, timeout=STEP)
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    return image


def power_on(machines, image, **kwargs):
    """A machine on `image`, with the log checker, at osh's prompt."""
    m = machines(image=image, append="panic=exit logcheck", **kwargs)
    m.expect(PROMPT, timeout=STEP)
    return m


def power_off(m, image):
    """Power off, and check the image."""
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    L.check_image(image)


def put_lines(out):
    """{name: 'put' or 'kept'} of what put-linux said it did."""
    done = {}
    for line in out.splitlines():
        put = re.match(r"put-linux: (\S+) <- ", line)
        kept = re.match(r"put-linux: (\S+): already there, the same bytes$", line)
        if put:
            done[put.group(1)] = "put"
        elif kept:
            done[kept.group(1)] = "kept"
    return done


def background_pid(m):
    """The pid of Ferrite's own hello, started in the background."""
    start = len(m.output)
    m.send("hello &\n")
    pid = m.expect(r"\[(\d+)\] started", timeout=STEP, start=start).group(1)
    m.expect(r"hello from hello, pid %s\n" % pid, timeout=STEP, start=start)
    return int(pid)


def libraries(binary):
    """The catalogue names of the libraries ldd names for `binary`."""
    out = subprocess.run(["ldd", binary], capture_output=True, text=True, check=True).stdout
    return {m.group(1).lstrip("/") for m in re.finditer(r"=> (/\S+) ", out)}


def host_files(tmp_path, files):
    """The input files below a host directory, as they are in the catalogue."""
    top = tmp_path / "files"
    for name, text in files.items():
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_text(text)
    return str(top)


def test_a_dynamic_hello_put_offline_runs_as_on_the_host(machines, tmp_path):
    """tests/linux/hello.c by the host's plain gcc (a PIE that needs
    ld-linux-x86-64.so.2 and libc.so.6) put into a powered-off image with
    `fe put-linux --offline`, which says what it put (the binary, the
    loader at its PT_INTERP path, libc at ldd's path): in Ferrite it prints
    what it prints on the host, its loader starting it (trace shows
    libc.so.6 opened and mapped, executable, from the catalogue)."""
    image = fresh_image(machines, tmp_path)
    r = fe(image, "put-linux", "--offline", HELLO)
    assert r.returncode == 0, r.stderr
    assert put_lines(r.stdout) == {"bin/hello-dynamic": "put", INTERP[1:]: "put",
                                   "lib/x86_64-linux-gnu/libc.so.6": "put"}, r.stdout
    assert r.stdout.endswith("put-linux: 3 put, 0 already there\n"), r.stdout
    m = power_on(machines, image)
    argv = ["hello-dynamic", "one", "two words"]
    want = L.host_run(argv, str(tmp_path), HELLO)
    assert want[1] == 3 and "hello from hello-dynamic, 3 arguments" in want[0], want
    assert L.ferrite_run(m, argv) == want
    trace = L.reply(m, "trace hello-dynamic")
    assert re.search(r'openat\(AT_FDCWD, "/lib/x86_64-linux-gnu/libc.so.6", '
                     r'O_RDONLY\|O_CLOEXEC\) = 3\n', trace), trace
    assert re.search(r"mmap\(0x[0-9a-f]+, \d+, PROT_READ\|PROT_EXEC, "
                     r"MAP_PRIVATE\|MAP_FIXED\|MAP_DENYWRITE, 3, 0x[0-9a-f]+\) = 0x", trace), trace
    assert trace.endswith("+++ exited with 3 +++\n"), trace
    power_off(m, image)
    # and started by execve, from a forked busybox sh, its loader found
    # below the caller's root
    r = subprocess.run([L.OBJTOOL, str(image), "import", "bin/busybox", L.BUSYBOX,
                        "--type", "code"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = power_on(machines, image)
    out = L.reply(m, "busybox sh -c '/bin/hello-dynamic one two | busybox wc -l; echo status $?'")
    lines = L.host_run(["hello-dynamic", "one", "two"], str(tmp_path), HELLO)[0].count("\n")
    assert out == "%d\nstatus 0\n" % lines, out
    power_off(m, image)


@pytest.mark.slow(18)
def test_sqlite3_put_over_the_link_runs_a_script_as_on_the_host(machines, tmp_path):
    """Debian's /usr/bin/sqlite3 (libsqlite3, libreadline, libz, libm,
    libtinfo, libc) put into a running machine with `fe put-linux`, then
    Debian's lua5.4 the same way, which finds its loader and its common
    libraries already there and says so; sqlite3 runs a SQL script on a
    database in the catalogue, printing byte for byte what the host's
    prints, and lua5.4 a Lua script; a power cut after leaves the image
    clean and the database whole."""
    image = fresh_image(machines, tmp_path)
    m = power_on(machines, image)
    r = fe(image, "put-linux", SQLITE3)
    assert r.returncode == 0, r.stderr
    want = {"bin/sqlite3": "put", INTERP[1:]: "put"}
    want.update({lib: "put" for lib in libraries(SQLITE3)})
    assert put_lines(r.stdout) == want, r.stdout
    r = fe(image, "put-linux", LUA, "lua")
    assert r.returncode == 0, r.stderr
    done = put_lines(r.stdout)
    assert done["bin/lua"] == "put" and done[INTERP[1:]] == "kept", r.stdout
    for lib in libraries(LUA):
        assert done[lib] == ("kept" if lib in libraries(SQLITE3) else "put"), (lib, r.stdout)
    files = {"t/script.sql": SQL, "t/script.lua": LUA_SCRIPT}
    top = host_files(tmp_path, files)
    for name in files:
        r = fe(image, "put", os.path.join(top, name), name)
        assert r.returncode == 0, r.stderr
    argv = ["sqlite3", "t/fruit.db", "<", "t/script.sql"]
    want = L.host_run(argv, top, SQLITE3)
    assert want[1] == 0 and "integrity_check" not in want[0] and want[0].endswith("6\nok\n"), want
    assert L.ferrite_run(m, argv) == want
    argv = ["lua", "t/script.lua"]
    want = L.host_run(argv, top, LUA)
    assert want[1] == 3 and "read back:\twritten by lua\n" in want[0], want
    assert L.ferrite_run(m, argv) == want
    m.power_cut()
    L.check_image(image)
    m = power_on(machines, image)
    argv = ["sqlite3", "t/fruit.db", "select count(*), sum(n) from eaten; pragma integrity_check;"]
    assert L.ferrite_run(m, argv) == ("6|49\nok\n", 0)
    power_off(m, image)


@pytest.mark.slow(35)
def test_python3_with_its_standard_library(machines, tmp_path):
    """Debian's /usr/bin/python3.11 put offline with its standard library
    (`put-linux --with /usr/lib/python3.11`: 1,400 files) runs `-c 'import
    json; ...'` and prints what it prints on the host."""
    image = fresh_image(machines, tmp_path, size="256M")
    r = fe(image, "put-linux", "--offline", "--with", PYTHON_LIB, PYTHON, "python3")
    assert r.returncode == 0, r.stderr
    done = put_lines(r.stdout)
    assert done["bin/python3"] == "put" and done["usr/lib/python3.11/json/__init__.py"] == "put"
    # the log checker's shadow of a 256 MiB heap needs more than the default RAM
    m = power_on(machines, image, ram="1G")
    argv = ["python3", "-c", PYTHON_LINE]
    want = L.host_run(argv, str(tmp_path), PYTHON)
    assert want == ('{"a": 1}\n', 0), want
    assert L.ferrite_run(m, argv) == want
    power_off(m, image)


def test_a_binary_whose_loader_is_missing_is_refused_naming_it(machines, tmp_path):
    """The host's /bin/true imported alone (objtool takes a dynamic binary
    as code): its spawn is refused before anything is made -- the
    kernel's line names the loader and ENOENT, osh says the program
    needs a file, no pid is used up -- and the image stays clean. Once
    put-linux has put its loader and libc, it runs."""
    out = subprocess.run(["readelf", "-l", "/bin/true"], capture_output=True, text=True).stdout
    interp = re.search(r"Requesting program interpreter: ([^\]]+)\]", out).group(1)
    image = fresh_image(machines, tmp_path)
    r = subprocess.run([OBJTOOL, str(image), "import", "bin/dyntrue", "/bin/true",
                        "--type", "code"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    m = power_on(machines, image)
    pid = background_pid(m)
    start = len(m.output)
    m.send("dyntrue\n")
    m.expect(r"spawn: dyntrue: its interpreter %s is not in the catalogue \(ENOENT\)\n"
             % re.escape(interp), timeout=STEP, start=start)
    m.expect(r"osh: 'bin/dyntrue' needs a file the catalogue lacks \(the kernel's line "
             r"names it\)\n", timeout=STEP, start=start)
    m.expect(PROMPT, timeout=STEP, start=start)
    assert L.reply(m, "echo $?") == "127\n"
    assert background_pid(m) == pid + 1  # no pid used up
    power_off(m, image)
    r = fe(image, "put-linux", "--offline", "/bin/true", "dyntrue")
    assert r.returncode == 0, r.stderr
    m = power_on(machines, image)
    assert L.ferrite_run(m, ["dyntrue"]) == ("", 0)
    power_off(m, image)


def test_put_linux_refuses_what_it_cannot_put(tmp_path):
    """put-linux stops, with one line and nothing put, at a binary that
    does not exist or is no ELF file, a library ldd cannot find (a
    program linked against a library since removed), a --with that is no
    directory, and a name with a '/'."""
    image = tmp_path / "refuse.nvm"
    r = subprocess.run([OBJTOOL, str(image), "create", "--size", "32M"], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    (tmp_path / "lib.c").write_text("int gone(void) { return 7; }\n")
    (tmp_path / "main.c").write_text("int gone(void);\nint main(void) { return gone(); }\n")
    subprocess.run(["gcc", "-shared", "-fPIC", "-o", str(tmp_path / "libgone.so"),
                    str(tmp_path / "lib.c")], check=True)
    subprocess.run(["gcc", "-o", str(tmp_path / "needs-gone"), str(tmp_path / "main.c"),
                    "-L", str(tmp_path), "-lgone"], check=True)
    os.unlink(tmp_path / "libgone.so")
    cases = [
        (["/nonexistent/binary"], "fe: put-linux: /nonexistent/binary: No such file or directory"),
        ([str(tmp_path / "main.c")],
         "fe: put-linux: %s: not a 64-bit little-endian ELF file" % (tmp_path / "main.c")),
        ([str(tmp_path / "needs-gone")],
         "fe: put-linux: %s needs libgone.so, which ldd does not find" % (tmp_path / "needs-gone")),
        (["--with", str(tmp_path / "main.c"), HELLO],
         "fe: put-linux: --with %s: not a directory" % (tmp_path / "main.c")),
        ([HELLO, "a/b"], "fe: put-linux: a/b: not a program's name (no '/', at most 251 bytes)"),
    ]
    for args, said in cases:
        r = fe(image, "put-linux", "--offline", *args)
        assert r.returncode == 1 and r.stderr == said + "\n" and r.stdout == "", (args, r)
    r = subprocess.run([OBJTOOL, str(image), "ls"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "", r
