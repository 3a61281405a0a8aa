"""test_hostlink_header.py -- the host link's two sides read one protocol.

include/ferrite/hostlink.h defines the protocol once: bin/linkd compiles
it, and tools/hostlink.py reads it (and the error codes of errors.h, the
object types and exit reasons of syscall.h) when imported, copying no
number. What could still drift is the reading: these tests compile
hostlink_describe.c, which prints what the C compiler makes of the
headers (every constant's value, every structure's size and fields'
offsets and sizes), and set it against what hostlink.py read. No QEMU.
"""

import json
import os
import subprocess
import sys

import pytest

from ferrite import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import hostlink  # noqa: E402

DESCRIBE = os.path.join(ROOT, "tests", "system", "hostlink_describe.c")
@pytest.fixture(scope="module")
def described(tmp_path_factory):
    """What the C compiler makes of the headers (hostlink_describe.c's JSON)."""
    exe = tmp_path_factory.mktemp("describe") / "hostlink_describe"
    cc = subprocess.run(["gcc", "-std=gnu11", "-Wall", "-Wextra", "-Werror",
                         "-I", os.path.join(ROOT, "include"), "-o", str(exe), DESCRIBE],
                        capture_output=True, text=True)
    assert cc.returncode == 0, cc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    return json.loads(run.stdout)


def parsed(protocol):
    """What the Python read: ({constant: value}, {struct: (size, [[field,
    offset, size]])}), with `protocol` (a CHeader) as hostlink.h."""
    constants = protocol.names("HOSTLINK_")
    constants.update(hostlink.ERROR_CODES.names("ERR_"))
    constants.update(hostlink.ABI.names("FE_TYPE_"))
    constants.update(hostlink.ABI.names("FE_EXIT_"))
    structs = {name: (protocol.layout(name).size, [list(f) for f in protocol.fields(name)])
               for name in protocol.structs}
    return constants, structs


def differences(described, protocol):
    """Every way the Python's reading (with `protocol` as hostlink.h)
    differs from the compiler's: ['HOSTLINK_DATA_MAX: 2048, not 4096', ...]."""
    constants, structs = parsed(protocol)
    want = described["constants"]
    out = [f"{n}: only the Python has it" for n in constants.keys() - want.keys()]
    out += [f"{n}: the Python has not read it" for n in want.keys() - constants.keys()]
    out += [f"{n}: {constants[n]}, not {want[n]}" for n in constants.keys() & want.keys()
            if constants[n] != want[n]]
    want = {n: (s["size"], s["fields"]) for n, s in described["structs"].items()}
    out += [f"struct {n}: only the Python has it" for n in structs.keys() - want.keys()]
    out += [f"struct {n}: the Python has not read it" for n in want.keys() - structs.keys()]
    out += [f"struct {n}: {structs[n]}, not {want[n]}" for n in structs.keys() & want.keys()
            if structs[n] != want[n]]
    return out


def test_the_python_reads_what_the_compiler_makes(described):
    assert differences(described, hostlink.PROTOCOL) == []
    # The names the module serves come from what it read.
    c = described["constants"]
    assert (hostlink.VERSION, hostlink.DATA_MAX, hostlink.FRAME_MAX, hostlink.CRC.size) == \
        (c["HOSTLINK_VERSION"], c["HOSTLINK_DATA_MAX"], c["HOSTLINK_FRAME_MAX"],
         c["HOSTLINK_CRC_SIZE"])
    assert (hostlink.REQ_PUT, hostlink.ANS_END, hostlink.KIND_CODE) == \
        (c["HOSTLINK_REQ_PUT"], c["HOSTLINK_ANS_END"], c["HOSTLINK_KIND_CODE"])
    assert hostlink.ERRORS == {v: n for n, v in c.items()
                               if n.startswith("ERR_") and n != "ERR__COUNT"}
    assert hostlink.TYPE_NAMES[c["FE_TYPE_CATALOGUE"]] == "catalogue"
    assert len(hostlink.TYPE_NAMES) == sum(n.startswith("FE_TYPE_") for n in c)
    assert hostlink.EXIT_REASONS[c["FE_EXIT_INTERRUPT"]] == "interrupted"


@pytest.mark.parametrize("change, found", [
    (("HOSTLINK_DATA_MAX 4096u", "HOSTLINK_DATA_MAX 2048u"), "HOSTLINK_DATA_MAX: 2048"),
    (("uint16_t reserved;", "uint32_t reserved;"), "struct hostlink_header:"),
    (("HOSTLINK_ANS_END = 0x8f,", "HOSTLINK_ANS_END = 0x8e,"), "HOSTLINK_ANS_END: 142"),
    (("HOSTLINK_KIND_CODE = 2,", "HOSTLINK_KIND_CODE = 2,\n\tHOSTLINK_KIND_DIR = 3,"),
     "HOSTLINK_KIND_DIR: only the Python"),
])
def test_a_header_that_drifted_is_found(described, tmp_path, change, found):
    """The comparison sees a header changed behind the compiler's back."""
    text = (hostlink.INCLUDE / "hostlink.h").read_text()
    assert change[0] in text
    (tmp_path / "hostlink.h").write_text(text.replace(change[0], change[1]))
    assert any(d.startswith(found) for d in
               differences(described, hostlink.CHeader(tmp_path / "hostlink.h")))


def test_what_the_reader_cannot_read_stops_it(tmp_path):
    """A field or an expression beyond the reader is an error, never a guess."""
    (tmp_path / "a.h").write_text("struct x {\n\tchar name[4];\n} __attribute__((packed));\n")
    with pytest.raises(ValueError, match="cannot read 'char name"):
        hostlink.CHeader(tmp_path / "a.h")
    (tmp_path / "b.h").write_text("#define B_SIZE ((uint32_t)4)\n")
    with pytest.raises(ValueError, match="cannot evaluate"):
        hostlink.CHeader(tmp_path / "b.h").value("B_SIZE")
