"""ferrite.py -- load Ferrite's gdb helpers: `source tools/gdb/ferrite.py`.

tools/debug (`make debug`) and tests/system/test_gdb.py source this file
into a gdb that has build/ferrite.elf loaded; so may anyone. It puts the
helpers' package (tools/gdb/fegdb/, one file per subject; its
__init__.py tells the design and lists the commands), the heap format's
description (tools/heapformat/heapformat.py) and how sizes are written
(tools/numtext.py) on Python's path,
and registers the fe-* commands and $fe_* functions. docs/debugging.md
is the guide.
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
for _path in (_HERE, os.path.join(os.path.dirname(_HERE), "heapformat")):
    if _path not in sys.path:
        sys.path.insert(0, _path)
if os.path.dirname(_HERE) not in sys.path:     # tools/, for numtext.py
    sys.path.append(os.path.dirname(_HERE))

# Sourced again (after an edit or a make), the helpers and the format's
# description are read afresh.
for _name in [n for n in sys.modules
              if n in ("fegdb", "heapformat", "numtext") or n.startswith("fegdb.")]:
    del sys.modules[_name]

import fegdb  # noqa: E402

fegdb.register()
