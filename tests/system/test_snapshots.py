"""test_snapshots.py -- whole-system snapshots (docs/snapshots.md) on the
real kernel in real QEMU: osh's snapshot commands, power-on into a
snapshot (resume=NAME) and back into the state it replaced, the automatic
power-on snapshots, and snapshot boot.
"""

import os
import random
import re
import subprocess
import time

from ferrite import PROMPT, ROOT, command, run
import heapimage as H

OBJTOOL = os.path.join(ROOT, "build", "objtool")
TIMEOUT = 120


def check_clean(image):
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr


def numbers(text, start, end=None):
    """The counter's numbers printed in text[start:end]."""
    return [int(n) for n in re.findall(r"^(?:osh> )?(7\d{4})\r?$", text[start:end], re.M)]


def without_counter(text):
    """text without the counter's lines (it prints while the shell works)."""
    return re.sub(r"^(osh> )?7\d{4}\r?\n", r"\1", text, flags=re.M)


def snapshot_names(m):
    """The names `snapshots` lists."""
    start = len(m.output)
    m.send("snapshots\n")
    end = m.expect(r"area: .*\n" + PROMPT, timeout=TIMEOUT, start=start).start()
    lines = m.output[start:end].split("\n")[2:]
    return [line.split()[0] for line in lines if line.strip()]


def poweroff(m):
    """osh's poweroff: everything committed, QEMU gone with status 0."""
    m.send("poweroff\n")
    assert m.wait_exit(timeout=TIMEOUT) == 0


def genesis(machines, image, append=None):
    """A fresh heap powered on; the machine at osh's first prompt."""
    m = machines(image=image, size="32M", append=append)
    m.expect(PROMPT, timeout=TIMEOUT)
    return m


def power_on(machines, image, append=None):
    """Power on; the machine, and where the output after the resume line starts."""
    m = machines(image=image, size="32M", append=append)
    return m, m.expect(r"ferrite: resumed at epoch .*\n", timeout=TIMEOUT).end()


def test_power_on_into_a_snapshot_and_back_into_the_state_it_replaced(machines, image):
    m = genesis(machines, image)
    command(m, "write notes/a first")
    command(m, "new big 64K")
    start = len(m.output)
    m.send("counter 70000 200 &\n")
    m.expect(r"^70002\r?\n", timeout=TIMEOUT, start=start)
    listing = without_counter(run(m, "ls -l", r"(?s)ID.*?big\r?\n").group(0))
    before_take = len(m.output)
    taken = run(m, "snapshot s1", r"snapshot s1 taken\r?\n")
    lo = numbers(m.output, 0, before_take)[-1]
    hi = numbers(m.output, 0, taken.start())[-1]
    # The state changes: names, objects, programs.
    run(m, "ps", r"counter")
    pid = re.search(r"^\s*(\d+)\s+\d+\s+\S+.*counter",
                    without_counter(m.output[taken.end():]), re.M).group(1)
    command(m, "kill " + pid)
    command(m, "rm notes/a")
    command(m, "write notes/b second")
    run(m, "cat notes/b", r"second")
    poweroff(m)
    check_clean(image)

    # Into s1: the objects, names and the counter as they were when taken.
    m, resumed = power_on(machines, image, append="resume=s1")
    assert "heap: powered on into snapshot s1; the state it replaced is kept as snapshot before-s1-1" in m.output
    assert re.search(r"ferrite: resumed at epoch \d+ .* in \d+ us, from snapshot s1\n", m.output)
    m.expect(r"snapshot s1 taken\r?\n", timeout=TIMEOUT, start=resumed)   # osh returns from the call
    m.expect(r"^7\d{4}\r?\n(?:.*\n)*?7\d{4}\r?\n", timeout=TIMEOUT, start=resumed)
    first = numbers(m.output, resumed)[0]
    assert lo + 1 <= first <= hi + 1, (lo, first, hi)
    m.expect(PROMPT, timeout=TIMEOUT, start=resumed)
    assert without_counter(run(m, "ls -l", r"(?s)ID.*?big\r?\n").group(0)) == listing
    run(m, "cat notes/a", r"first")
    run(m, "cat notes/b", r"no object named|not found|no such")
    names = snapshot_names(m)
    assert "s1" in names and "before-s1-1" in names, names
    poweroff(m)
    check_clean(image)

    # And back: the state s1 replaced, the counter killed, notes/b there.
    m, _ = power_on(machines, image, append="resume=before-s1-1")
    m.expect(PROMPT, timeout=TIMEOUT)
    run(m, "cat notes/b", r"second")
    start = len(m.output)
    run(m, "ps", r"osh")
    assert "counter" not in m.output[start:]
    poweroff(m)
    check_clean(image)


def test_a_missing_snapshot_is_refused_and_the_snapshots_listed(machines, image):
    m = genesis(machines, image)
    run(m, "snapshot keep-me", r"snapshot keep-me taken")
    poweroff(m)
    m = machines(image=image, size="32M", append="resume=nosuch panic=exit")
    m.expect(r"error: heap: there is no snapshot named 'nosuch' to power on into\n"
             r"error:   the heap keeps these snapshots:\n", timeout=TIMEOUT)
    m.expect(r"error:     keep-me +epoch \d+\n", timeout=TIMEOUT)
    m.expect(r"error:   power on into one with: tools/run-qemu --append resume=NAME\n",
             timeout=TIMEOUT)
    assert m.wait_exit(timeout=TIMEOUT) == 37
    check_clean(image)


def test_shell_commands_say_what_is_wrong(machines, image):
    m = genesis(machines, image)
    run(m, "snapshot a", r"snapshot a taken")
    run(m, "snapshot a", r"snapshot: there is a snapshot named a already")
    run(m, "snapshot 'a b'", r"is not a snapshot name")
    run(m, "snapshot rm nosuch", r"snapshot rm: no snapshot named nosuch")
    run(m, "snapshot keep lots", r"snapshot keep: 'lots' is not a count")
    run(m, "snapshot rm a b", r"usage: snapshot NAME")
    run(m, "echo $?", r"2")
    run(m, "snapshot rm a", r"")
    assert "a" not in snapshot_names(m)
    run(m, "snapshot boot nosuch", r"snapshot boot: no snapshot named nosuch")


def test_every_power_on_is_kept_and_snapshot_boot_starts_from_one(machines, image):
    m = genesis(machines, image)
    assert snapshot_names(m) == ["power-on-1"]
    command(m, "write clean yes")
    run(m, "snapshot base", r"snapshot base taken")
    run(m, "snapshot boot base", r"every power-on starts from base")
    command(m, "write dirt 1")
    poweroff(m)
    for n in (1, 2):
        m, _ = power_on(machines, image)
        assert "heap: snapshot boot: every power-on starts from snapshot base" in m.output
        assert "from snapshot base" in m.output
        m.expect(PROMPT, timeout=TIMEOUT)
        run(m, "cat dirt", r"no object|not found|no such")
        command(m, "write dirt %d" % n)
        poweroff(m)
    m, _ = power_on(machines, image)
    m.expect(PROMPT, timeout=TIMEOUT)
    run(m, "snapshot boot off", r"snapshot boot: off")
    command(m, "write kept 1")
    names = snapshot_names(m)
    assert "base" in names and "before-base-2" in names, names
    assert "before-base-1" not in names, names      # only `keep` (2) of them
    assert len([n for n in names if n.startswith("power-on-")]) == 2, names
    poweroff(m)
    m, _ = power_on(machines, image)
    assert "from snapshot" not in m.output
    m.expect(PROMPT, timeout=TIMEOUT)
    run(m, "cat kept", r"1")
    poweroff(m)
    check_clean(image)


def listing(m):
    """What `ls -l` shows: the catalogue, ids, sizes, epochs."""
    return run(m, "ls -l", r"(?s)ID.*?\n(?=osh> )").group(0)


def prompt_after_power_on(machines, image):
    """Power on; an empty line typed once resumed, so that osh, waiting at
    its prompt, shows one; the machine at that prompt."""
    m, resumed = power_on(machines, image)
    m.send("\n")
    m.expect(PROMPT, timeout=TIMEOUT, start=resumed)
    return m


def cut_after(m, anchor, seconds):
    """Cut the power `seconds` after the console printed `anchor`."""
    m.expect(anchor, timeout=TIMEOUT)
    time.sleep(seconds)
    m.power_cut()


def test_power_cuts_while_restoring_taking_and_removing(machines, image, tmp_path):
    # A restore is many transactions; cut anywhere in it, the next power-on
    # shows the state before or the snapshot's, never a mixture, and the
    # image checks clean. The same for taking and removing one.
    m = genesis(machines, image)
    command(m, "write state one")
    command(m, "cp bin/usertest u1")
    run(m, "snapshot s1", r"snapshot s1 taken")
    at_s1 = listing(m)
    command(m, "write state two")
    command(m, "rm u1")
    command(m, "cp bin/sysfuzz f1")
    command(m, "cp bin/osh o1")
    for n in range(4):
        command(m, "cp bin/kvd k%d" % n)
    after = listing(m)
    poweroff(m)
    original = image.read_bytes()

    def fresh():
        image.write_bytes(original)

    # How long the restore takes, from the NVM line to the heap's report.
    fresh()
    m = machines(image=image, size="32M", append="resume=s1 earlyprintk")
    m.expect(r"nvm: .*\n", timeout=TIMEOUT)
    t0 = time.monotonic()
    m.expect(r"heap: powered on into snapshot s1", timeout=TIMEOUT)
    window = time.monotonic() - t0
    m.power_cut()

    rng = random.Random(16)
    into_s1 = during = 0
    for cut in range(6):
        fresh()
        m = machines(image=image, size="32M", append="resume=s1 earlyprintk")
        cut_after(m, r"nvm: .*\n", rng.uniform(0, 1.2 * window))
        p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
        during += "is unfinished" in p.stdout
        m = prompt_after_power_on(machines, image)
        now = listing(m)
        assert now in (at_s1, after), "cut %d: a mixture:\n%s" % (cut, now)
        into_s1 += now == at_s1
        poweroff(m)
        check_clean(image)
    print("restores cut: %d of 6 in the middle, %d of 6 powered on into s1"
          % (during, into_s1))

    for line, name in (("snapshot s2", "s2"), ("snapshot rm s1", "s1")):
        for cut in range(3):
            fresh()
            m = prompt_after_power_on(machines, image)
            start = len(m.output)
            m.send(line + "\n")
            m.expect(line, timeout=TIMEOUT, start=start)
            time.sleep(rng.uniform(0, 0.05))
            m.power_cut()
            check_clean(image)
            m = prompt_after_power_on(machines, image)
            assert listing(m) == after
            names = snapshot_names(m)
            assert ("s1" in names) or line.startswith("snapshot rm"), names
            poweroff(m)
            check_clean(image)


def test_a_damaged_state_lists_the_snapshots_and_one_powers_on(machines, image):
    # Power-on refuses a state whose kernel objects are damaged, never
    # falling back by itself: it lists the snapshots and the command line
    # that powers on into one; that one then runs.
    m = genesis(machines, image)
    run(m, "snapshot good", r"snapshot good taken")
    command(m, "write x y")
    poweroff(m)
    img = bytearray(image.read_bytes())
    what, root, layout = H.kernel_objects(img)[0]
    assert what == "kernel root"
    layout.put(img, root, "line_len", 400)
    image.write_bytes(bytes(img))

    m = machines(image=image, size="32M", append="panic=exit")
    m.expect(r"heap: the kernel objects in the Ferrite heap on the NVM are damaged:\n",
             timeout=TIMEOUT)
    m.expect(r"error:   the heap keeps these snapshots:\n(?:error: .*\n)*?"
             r"error:     good +epoch \d+\n", timeout=TIMEOUT)
    m.expect(r"power on into one with: tools/run-qemu --append resume=NAME\n",
             timeout=TIMEOUT)
    assert m.wait_exit(timeout=TIMEOUT) == 37

    m, resumed = power_on(machines, image, append="resume=good")
    m.expect(PROMPT, timeout=TIMEOUT, start=resumed)
    run(m, "cat x", r"no object named 'x'")
    poweroff(m)
    # The state replaced is kept, damage and all, and objtool check says so;
    # removed, the image is clean.
    p = subprocess.run([OBJTOOL, str(image), "check"], capture_output=True, text=True)
    assert p.returncode == 7, p.stdout + p.stderr
    assert "snapshot before-good-1: kernel objects: kernel root" in p.stdout, p.stdout
    p = subprocess.run([OBJTOOL, str(image), "snapshot", "rm", "before-good-1"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    check_clean(image)


def test_resume_works_on_the_grub_path(machines, image):
    m = genesis(machines, image)
    run(m, "snapshot s1", r"snapshot s1 taken")
    command(m, "write after yes")
    poweroff(m)
    m = machines(image=image, size="32M", boot="iso", append="resume=s1")
    m.expect(r"ferrite: resumed at epoch .*, from snapshot s1\n", timeout=TIMEOUT)
    m.expect(PROMPT, timeout=TIMEOUT)
    run(m, "cat after", r"no object named 'after'")
    poweroff(m)
