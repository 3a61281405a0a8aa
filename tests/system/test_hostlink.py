"""The host link (docs/hostlink.md): tools/fe put, get, ls and run against a
running machine, through the window and in frames alone; a put durable
when it returns and whole or absent after a power cut in its middle, in
frames or through the window; malformed frames and spans refused while the
system keeps running and loses nothing (the fuzzing's quick form).

Every transfer is checked byte for byte against what was sent; the cuts
are SIGKILLs of QEMU at a point the test chooses by what it has sent, never
by time.
"""

import io
import json
import os
import pty
import random
import subprocess
import sys
import threading
import zlib

import pytest

from ferrite import PROMPT, ROOT
from ferrite import run as osh_run

sys.path.insert(0, os.path.join(ROOT, "tools"))
import hostlink  # noqa: E402

FE = os.path.join(ROOT, "tools", "fe")
OBJTOOL = os.path.join(ROOT, "build", "objtool")
STEP = 120


def fe(image, *args, stdin=None):
    return subprocess.run([FE, "--image", str(image), "--timeout", str(STEP), *args],
                          capture_output=True, timeout=600, input=stdin)


def link(image, window=False):
    """A session; through the window when `window`, else in frames alone."""
    return hostlink.Link(hostlink.socket_path(image), timeout=STEP,
                         window=hostlink.window_path(image) if window else None)


def get_bytes(image, name):
    with link(image) as ln:
        out = io.BytesIO()
        ln.get(name, out)
        return out.getvalue()


def objtool_json(image, *args):
    r = subprocess.run([OBJTOOL, str(image), *args, "--json"], capture_output=True,
                       text=True, timeout=STEP)
    return r.returncode, json.loads(r.stdout)


@pytest.fixture(scope="module")
def machine(module_machines, tmp_path_factory):
    image = tmp_path_factory.mktemp("hostlink") / "link.nvm"
    m = module_machines(image=image, size="64M")
    m.expect(PROMPT, timeout=STEP)
    m.image = image
    return m


# Sizes around the frame (4096 data bytes) and COBS's 254-byte blocks, and
# contents full of the bytes framing treats specially.
SIZES = [0, 1, 253, 254, 255, 4095, 4096, 4097, 3 * 4096 + 7, 300_000]


def contents(size, seed):
    rnd = random.Random(seed)
    pattern = [b"\0" * 300, b"\xff" * 300, bytes(rnd.getrandbits(8) for _ in range(300))]
    data = b"".join(pattern[rnd.randrange(3)] for _ in range(size // 300 + 1))
    return data[:size]


@pytest.mark.parametrize("way", [(), ("--no-window",)], ids=["window", "frames"])
def test_put_get_ls_round_trip(machine, tmp_path, way):
    for size in SIZES:
        data = contents(size, size)
        src = tmp_path / f"in{size}"
        src.write_bytes(data)
        r = fe(machine.image, *way, "put", str(src), f"up/obj{size}")
        assert r.returncode == 0 and r.stdout == b"" and r.stderr == b"", r
        r = fe(machine.image, *way, "get", f"up/obj{size}", str(tmp_path / f"out{size}"))
        assert r.returncode == 0, r
        assert (tmp_path / f"out{size}").read_bytes() == data, size
    r = fe(machine.image, "get", "up/obj4097", "-")
    assert r.returncode == 0 and r.stdout == contents(4097, 4097)
    r = fe(machine.image, "ls", "up/")
    lines = r.stdout.decode().splitlines()
    assert r.returncode == 0 and len(lines) == len(SIZES), r
    for size in SIZES:
        assert f"blob     {size:12}  up/obj{size}" in lines
    # the shell on the console sees the same objects
    osh_run(machine, "stat up/obj4097", r"4097")
    # a put replaces what the name held
    (tmp_path / "v2").write_bytes(b"second version\n")
    assert fe(machine.image, "put", str(tmp_path / "v2"), "up/obj1").returncode == 0
    assert get_bytes(machine.image, "up/obj1") == b"second version\n"


def test_errors_are_clear_and_change_nothing(machine, tmp_path):
    r = fe(machine.image, "get", "no/such/name", str(tmp_path / "x"))
    assert r.returncode == 1 and b"get no/such/name: no such object or name (ERR_NOENT)" in r.stderr, r
    assert not (tmp_path / "x").exists()
    (tmp_path / "small").write_bytes(b"x")
    r = fe(machine.image, "put", str(tmp_path / "small"), "n" * 256)
    assert r.returncode == 1 and b"ERR_INVAL" in r.stderr, r
    r = fe(machine.image, "put", str(tmp_path / "missing"), "up/m")
    assert r.returncode == 2 and b"put:" in r.stderr and b"No such file" in r.stderr, r
    r = fe(machine.image, "bogus")
    assert r.returncode == 2 and r.stderr.startswith(b"fe: "), r
    r = fe(tmp_path / "nothing.nvm", "ls")
    assert r.returncode == 2 and b"no machine's link at" in r.stderr, r
    # a get of a process-only object type, a run of nothing
    r = fe(machine.image, "run", "")
    assert r.returncode == 1 and b"run: a command line of 1 to" in r.stderr, r
    assert fe(machine.image, "ls", "no/such/").stdout == b""


def test_run_gives_output_and_status(machine):
    r = fe(machine.image, "run", "hello from-the-host")
    assert r.returncode == 0 and r.stdout.startswith(b"hello from hello, pid "), r
    r = fe(machine.image, "run", "ls up/obj409")
    assert r.returncode == 0 and r.stdout.decode().split() == ["up/obj4095", "up/obj4096",
                                                             "up/obj4097"], r
    r = fe(machine.image, "run", "nosuchprogram")
    assert r.returncode == 127 and b"no program named 'bin/nosuchprogram'" in r.stdout, r
    # a program that reads the console sees the end of its input, not the
    # machine's keyboard; the console's own shell is untouched
    r = fe(machine.image, "run", "echo one two")
    assert r.returncode == 0 and r.stdout == b"one two\n", r
    osh_run(machine, "echo still here", r"still here\n")


def test_the_link_s_powers_are_a_handle_the_kernel_gives(machines, tmp_path):
    """The link's powers are a handle to the link that the kernel gives the
    service it starts, never a name: a program a user binds to bin/linkd
    gets none (usertest's link checks, run as bin/linkd, find every handle
    it holds or forges refused), and the kernel starts the service from the
    program it imported at genesis, not from what bin/linkd names when
    bytes first come."""
    image = tmp_path / "powers.nvm"
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP)
    # the real program, run from osh, holds no handle either
    osh_run(m, "linkd", r"linkd: no link handle: the kernel starts the link's "
                        r"service itself, with one\n")
    osh_run(m, "rm bin/linkd", r"")
    osh_run(m, "ln bin/usertest bin/linkd", r"")
    osh_run(m, "linkd link", r"usertest: [1-9]\d* passed, 0 failed\n")
    # no service ran yet: the first bytes from the host start it, from the
    # program the kernel trusts -- it speaks the protocol (usertest would not)
    hello = os.path.join(ROOT, "build", "user", "bin", "hello")
    r = fe(image, "put", hello, "bin/greeter")
    assert r.returncode == 0, r
    assert get_bytes(image, "bin/greeter") == open(hello, "rb").read()
    osh_run(m, "ps", r"\n\s*\d+\s+0\s+\S+\s+\d+\s+\d+\s+linkd\n")


def test_program_put_live_runs_from_osh(machine):
    hello = os.path.join(ROOT, "build", "user", "bin", "hello")
    r = fe(machine.image, "put", hello, "bin/greeter")
    assert r.returncode == 0, r
    r = fe(machine.image, "ls", "bin/greeter")
    assert r.stdout.decode().split()[:2] == ["code", str(os.path.getsize(hello))], r
    start = len(machine.output)
    machine.send("greeter\n")
    machine.expect(r"hello from greeter, pid \d+\n", timeout=STEP, start=start)
    machine.expect(PROMPT, timeout=STEP, start=start)
    # --blob keeps an ELF file a blob: osh refuses to run it
    r = fe(machine.image, "put", "--blob", hello, "bin/greeter")
    assert r.returncode == 0
    r = fe(machine.image, "run", "greeter")
    assert r.returncode == 1 and b"is not a program" in r.stdout, r


def test_progress_line_on_a_terminal(machine, tmp_path):
    src = tmp_path / "big"
    src.write_bytes(contents(300_000, 7))
    controller, terminal = pty.openpty()
    proc = subprocess.Popen([FE, "--image", str(machine.image), "put", str(src), "up/big"],
                            stdin=terminal, stdout=terminal, stderr=terminal)
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:
            break
        if not chunk:
            break
        seen += chunk
    assert proc.wait(timeout=STEP) == 0, seen
    os.close(controller)
    assert b"put up/big: 293.0 KiB of 293.0 KiB (100%)" in seen, seen
    assert b"\r" in seen
    assert get_bytes(machine.image, "up/big") == src.read_bytes()


def test_every_kernel_write_of_the_link_is_logged(machines, tmp_path):
    # logcheck (docs/logcheck.md) proves at each commit that every kernel
    # write was logged: here through the link's paths -- the service's
    # start, a blob, code made from a blob, a name replaced, a console sink
    # and its inheritance
    image = tmp_path / "logcheck.nvm"
    m = machines(image=image, size="16M", append="logcheck panic=exit")
    m.expect(PROMPT, timeout=STEP)
    hello = os.path.join(ROOT, "build", "user", "bin", "hello")
    with link(image) as ln:
        ln.put(b"one", "lc/a")
        ln.put(b"two", "lc/a")
    with link(image, window=True) as ln:  # and SYS_LINK_MOVE's writes
        assert ln.window is not None
        ln.put(contents(100_000, 5), "lc/w")
        assert ln.get("lc/w", io.BytesIO()) == 100_000
        with open(hello, "rb") as f:
            ln.put(f.read(), "bin/lc", hostlink.KIND_CODE)
        out = io.BytesIO()
        assert ln.run("lc", out)[:2] == (0, "exited")
        assert out.getvalue().startswith(b"hello from lc, pid ")
    assert get_bytes(image, "lc/a") == b"two"
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    assert "logcheck: on" in m.output and "panic:" not in m.output


def test_put_is_durable_when_it_returns(machines, tmp_path):
    image = tmp_path / "durable.nvm"
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP)
    data = contents(50_000, 3)
    with link(image) as ln:
        ln.put(data, "kept")
    m.power_cut()
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP)
    assert get_bytes(image, "kept") == data


def cut_during_put(machines, image, name, data, fraction, window=False, extra=()):
    """Power a machine on, put `data` as `name` and cut the power once
    `fraction` of it was sent (through the window: once that much was
    stored, with the next span on its way); the machine of the next
    power-on."""
    m = machines(image=image, size="32M", extra=extra)
    m.expect(PROMPT, timeout=STEP)
    sent = threading.Event()
    ln = link(image, window)
    assert (ln.window is not None) == window

    def progress(done, total):
        if done >= total * fraction and not sent.is_set():
            sent.set()
            m.power_cut()
            raise hostlink.LinkError("cut")

    with pytest.raises((hostlink.LinkError, OSError)):
        ln.put(data, name, progress=progress)
    ln.close()
    assert sent.is_set()
    m = machines(image=image, size="32M", extra=extra)
    m.expect(PROMPT, timeout=STEP)
    return m


@pytest.mark.slow(57)
def test_power_cut_in_a_put_leaves_the_old_object_or_none(machines, tmp_path):
    image = tmp_path / "cut.nvm"
    m = machines(image=image, size="32M")
    m.expect(PROMPT, timeout=STEP)
    old = contents(10_000, 1)
    with link(image) as ln:
        ln.put(old, "doc")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    big = contents(1_500_000, 2)
    m = cut_during_put(machines, image, "doc", big, 0.5)
    assert get_bytes(image, "doc") == old
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    m = cut_during_put(machines, image, "fresh", big, 0.7)
    r = fe(image, "get", "fresh", str(tmp_path / "f"))
    assert r.returncode == 1 and b"ERR_NOENT" in r.stderr, r
    # linkd dropped the half-made objects when the link started over (the
    # HELLO above came after that): nothing of them is left in the heap
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    status, check = objtool_json(image, "check")
    assert status == 0 and check["clean"], check
    _, info = objtool_json(image, "info", "--stats")
    blobs = [t for t in info["stats"]["types"] if t["type"] == "blob"]
    assert sum(t["bytes"] for t in blobs) < len(big), blobs


@pytest.mark.slow(33)
def test_power_cut_in_a_windowed_put_leaves_the_old_object_or_none(machines, tmp_path):
    """The window carries a put in spans of 2 MiB (a 4 MiB window in two
    parts): cut while the machine stores one, after others were stored."""
    image = tmp_path / "wcut.nvm"
    extra = ("--link-window", "4M")
    m = machines(image=image, size="32M", extra=extra)
    m.expect(PROMPT, timeout=STEP)
    old = contents(3_000_000, 21)
    with link(image, window=True) as ln:
        ln.put(old, "doc")
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    big = contents(9_000_000, 22)
    m = cut_during_put(machines, image, "doc", big, 0.4, window=True, extra=extra)
    assert get_bytes(image, "doc") == old
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    m = cut_during_put(machines, image, "fresh", big, 0.4, window=True, extra=extra)
    r = fe(image, "get", "fresh", str(tmp_path / "f"))
    assert r.returncode == 1 and b"ERR_NOENT" in r.stderr, r
    m.send("poweroff\n")
    assert m.wait_exit(timeout=STEP) == 0
    status, check = objtool_json(image, "check")
    assert status == 0 and check["clean"], check
    _, info = objtool_json(image, "info", "--stats")
    blobs = [t for t in info["stats"]["types"] if t["type"] == "blob"]
    assert sum(t["bytes"] for t in blobs) < len(old) + len(big) // 2, blobs


@pytest.fixture(scope="module")
def big_machine(module_machines, tmp_path_factory):
    """A machine with room for 64 MiB objects and the launcher's window."""
    image = tmp_path_factory.mktemp("window") / "window.nvm"
    m = module_machines(image=image, size="256M")
    m.expect(PROMPT, timeout=STEP)
    m.image = image
    return m


def test_a_64_mib_put_and_get_through_the_window(big_machine, tmp_path):
    data = os.urandom(64 << 20) + b"and a tail"
    src, out = tmp_path / "big", tmp_path / "big.out"
    src.write_bytes(data)
    r = fe(big_machine.image, "put", str(src), "big/one")
    assert r.returncode == 0 and r.stderr == b"", r
    r = fe(big_machine.image, "get", "big/one", str(out))
    assert r.returncode == 0 and r.stderr == b"", r
    assert out.read_bytes() == data
    r = fe(big_machine.image, "ls", "big/")
    assert r.stdout.decode().split() == ["blob", str(len(data)), "big/one"], r


def refused(ln, ftype, tag, payload, code, text):
    """Send one frame; its answer must be ERR `code` saying `text`."""
    ln.send(ftype, tag, payload)
    with pytest.raises(hostlink.LinkError) as e:
        ln.answer(tag)
    assert e.value.code == hostlink.ERROR_CODES.value(code), str(e.value)
    assert text in str(e.value), str(e.value)


def test_malformed_spans_are_refused_with_a_clear_error(big_machine, tmp_path):
    image = big_machine.image
    keep = contents(50_000, 31)
    span = hostlink.SPAN.pack
    with link(image, window=True) as ln:
        ln.put(keep, "spans/keep")
        size = ln.window_size
        assert ln.window is not None and size == 64 << 20

        def put(tag, data=b"x" * 100, crc=None):
            crc = zlib.crc32(data) if crc is None else crc
            ln.send(hostlink.REQ_PUT, tag, hostlink.PUT.pack(len(data), crc, hostlink.KIND_BLOB)
                    + b"spans/new")
            assert ln.expect(tag, hostlink.ANS_READY)

        refused(ln, hostlink.REQ_PUT_SPAN, 40, span(0, 0, 100), "ERR_INVAL",
                "span: no put in progress with tag 40")
        put(41)
        refused(ln, hostlink.REQ_PUT_SPAN, 41, span(0, size - 50, 100), "ERR_RANGE",
                "span: window bytes %d to %d are not in the %d-byte window"
                % (size - 50, size + 50, size))
        put(42)
        refused(ln, hostlink.REQ_PUT_SPAN, 42, span(0, 2 ** 64 - 10, 100), "ERR_RANGE",
                "are not in the")
        put(43)
        refused(ln, hostlink.REQ_PUT_SPAN, 43, span(8, 0, 92), "ERR_RANGE",
                "span: 92 bytes at 8, but 0 of 100 came before")
        put(44)
        refused(ln, hostlink.REQ_PUT_SPAN, 44, span(0, 0, 101), "ERR_RANGE",
                "span: 101 bytes at 0, but 0 of 100 came before")
        put(45)
        refused(ln, hostlink.REQ_PUT_SPAN, 45, span(0, 0, 100)[:20], "ERR_INVAL",
                "span: a span holds offset, window place and length (24 bytes)")
        put(46)
        refused(ln, hostlink.REQ_PUT_SPAN, 46, span(0, 0, 0), "ERR_INVAL",
                "span: an empty span")
        # bytes in the window that are not what the PUT's CRC-32 says
        ln.window[0:100] = b"y" * 100
        put(47, crc=zlib.crc32(b"x" * 100))
        ln.send(hostlink.REQ_PUT_SPAN, 47, span(0, 0, 100))
        assert ln.expect(47, hostlink.ANS_SPAN)
        with pytest.raises(hostlink.LinkError) as e:
            ln.answer(47)
        assert e.value.code == hostlink.ERROR_CODES.value("ERR_CORRUPT"), str(e.value)
        assert "put spans/new: the bytes stored make CRC-32" in str(e.value)
        # a windowed get's spans
        refused(ln, hostlink.REQ_GET_SPAN, 50, span(0, 0, 10), "ERR_INVAL",
                "span: no windowed get in progress with tag 50")
        refused(ln, hostlink.REQ_GET_WINDOW, 51, b"spans/none", "ERR_NOENT",
                "get spans/none: no such object or name")
        ln.send(hostlink.REQ_GET_WINDOW, 52, b"spans/keep")
        assert ln.expect(52, hostlink.ANS_INFO)
        refused(ln, hostlink.REQ_GET_SPAN, 52, span(100, 0, 10), "ERR_RANGE",
                "span: 10 bytes at 100, but 0 of 50000 came before")
        ln.send(hostlink.REQ_GET_WINDOW, 53, b"spans/keep")
        assert ln.expect(53, hostlink.ANS_INFO)
        refused(ln, hostlink.REQ_GET_SPAN, 53, span(0, size, 1), "ERR_RANGE",
                "are not in the")
    # nothing was made or lost, and the window works on
    with link(image, window=True) as ln:
        assert [n for n, *_ in ln.ls("spans/")] == ["spans/keep"]
        out = io.BytesIO()
        ln.get("spans/keep", out)
        assert out.getvalue() == keep
        ln.put(keep[::-1], "spans/after")
    assert get_bytes(image, "spans/after") == keep[::-1]


def test_no_window_means_frames(machines, tmp_path):
    """A machine without a window (--link-window 0) says so, and fe moves
    everything in frames."""
    image = tmp_path / "nowin.nvm"
    m = machines(image=image, size="32M", extra=("--link-window", "0"))
    m.expect(PROMPT, timeout=STEP)
    data = contents(20_000, 41)
    (tmp_path / "in").write_bytes(data)
    assert fe(image, "put", str(tmp_path / "in"), "nw").returncode == 0
    assert fe(image, "get", "nw", str(tmp_path / "out")).returncode == 0
    assert (tmp_path / "out").read_bytes() == data
    with link(image, window=True) as ln:
        assert ln.window_size == 0 and ln.window is None
        refused(ln, hostlink.REQ_GET_WINDOW, 60, b"nw", "ERR_NOTSUP",
                "get nw: this machine has no window")


def drain(ln, answers, stop):
    """Collect every frame the machine sends until `stop` (a reader, so that
    the machine's answers never back up while garbage is sent)."""
    while not stop.is_set():
        try:
            got = ln.receive(wait=False)
        except hostlink.LinkError as e:
            answers.append(("garbled", str(e)))
            continue
        if got is not None:
            answers.append(got)
        else:
            stop.wait(0.01)


def test_malformed_frames_are_refused_and_nothing_is_lost(machine, tmp_path):
    # make fuzz-link is the long form: more frames, a seed to replay
    seed = int(os.environ.get("FERRITE_LINKFUZZ_SEED", random.randrange(1 << 30)))
    frames = int(os.environ.get("FERRITE_LINKFUZZ_FRAMES", 200))
    rnd = random.Random(seed)
    keep = contents(20_000, 11)
    (tmp_path / "keep").write_bytes(keep)
    assert fe(machine.image, "put", str(tmp_path / "keep"), "fuzz/keep").returncode == 0

    ln = link(machine.image)
    answers, stop = [], threading.Event()
    reader = threading.Thread(target=drain, args=(ln, answers, stop), daemon=True)
    reader.start()
    good = hostlink.frame(hostlink.REQ_LS, 7, b"fuzz/")
    raw = hostlink.HEADER.pack(1, hostlink.REQ_GET, 0, 8, 9) + b"fuzz/keep"
    kinds = []
    for i in range(frames):
        kind = rnd.randrange(9)
        kinds.append(kind)
        if kind == 0:    # random bytes, zeros among them
            blob = bytes(rnd.getrandbits(8) for _ in range(rnd.randrange(1, 300)))
        elif kind == 1:  # a frame cut short
            blob = good[:rnd.randrange(1, len(good) - 1)] + b"\0"
        elif kind == 2:  # one byte flipped
            at = rnd.randrange(len(good) - 1)
            blob = good[:at] + bytes([good[at] ^ (1 << rnd.randrange(8)) or 1]) + good[at + 1:]
        elif kind == 3:  # a length that is not the payload's, with a good CRC
            bad = hostlink.HEADER.pack(1, hostlink.REQ_GET, 0, 9, rnd.randrange(1 << 32)) + b"fuzz/keep"
            blob = hostlink.cobs_encode(bad + hostlink.CRC.pack(zlib.crc32(bad))) + b"\0"
        elif kind == 4:  # another version, an unknown type
            blob = hostlink.frame(rnd.randrange(0x20, 0x80), 10, b"x", version=rnd.choice([1, 2, 0]))
        elif kind == 5:  # DATA with no put, PUT with a bad kind or no name
            blob = (hostlink.frame(hostlink.REQ_DATA, 11, b"\0" * 8 + b"abc") if rnd.randrange(2)
                    else hostlink.frame(hostlink.REQ_PUT, 12, b"\1" * 13 + bytes([9]) + b"zz"))
        elif kind == 6:  # a flood: one frame far longer than any
            blob = bytes(rnd.randrange(1, 256) for _ in range(rnd.randrange(5000, 20000))) + b"\0"
        elif kind == 7:  # the valid request in the middle of it all
            blob = hostlink.cobs_encode(raw + hostlink.CRC.pack(zlib.crc32(raw))) + b"\0"
        else:            # a header only, no CRC
            blob = hostlink.cobs_encode(raw[:hostlink.HEADER.size]) + b"\0"
        ln.sock.sendall(blob)
    # A last request whose answer says every frame before it was handled.
    ln.sock.sendall(b"\0" + hostlink.frame(hostlink.REQ_HELLO, 99, b"lastlast"))
    for _ in range(STEP * 20 * max(1, frames // 200)):  # polls for the answer, bounded
        if any(a[0] == hostlink.ANS_HELLO and a[1] == 99 for a in answers if len(a) == 3):
            break
        assert reader.is_alive()
        stop.wait(0.05)
    else:
        pytest.fail("no answer to the HELLO after the fuzzing (seed %d)" % seed)
    stop.set()
    reader.join()
    ln.close()

    codes = {hostlink.ERROR.unpack_from(p)[0] for t, _, p in
             (a for a in answers if len(a) == 3) if t == hostlink.ANS_ERR}
    for name, kind in (("ERR_CORRUPT", 0), ("ERR_TOOBIG", 6), ("ERR_INVAL", 3)):
        if kind in kinds:
            assert hostlink.ERROR_CODES.value(name) in codes, (seed, name, sorted(codes))
    assert not [a for a in answers if a[0] == "garbled"], seed

    # nothing lost, and the link and the console work on
    assert get_bytes(machine.image, "fuzz/keep") == keep, seed
    (tmp_path / "after").write_bytes(b"after the fuzz\n")
    assert fe(machine.image, "put", str(tmp_path / "after"), "fuzz/after").returncode == 0
    assert get_bytes(machine.image, "fuzz/after") == b"after the fuzz\n"
    osh_run(machine, "cat fuzz/after", r"after the fuzz\n")
