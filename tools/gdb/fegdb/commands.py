"""commands.py -- what every fe-* command and $fe_* function shares: one
line for every failure, never a Python traceback.

A command says why it cannot do its work (the heap is not open yet,
genesis has not made the kernel root, no such process, a damaged
structure...) in one line that starts with its name; a convenience
function raises gdb's own one-line error. A bug in the helpers still
comes out as one line, naming the file to fix.
"""

import gdb

import heapformat

from .target import FeError


class FeCommand(gdb.Command):
    """A Ferrite command: FeError and gdb errors become one line, never a traceback."""

    def __init__(self, name):
        """Register the command under `name`."""
        super().__init__(name, gdb.COMMAND_USER)
        self.name = name

    def invoke(self, arg, from_tty):
        """Run the command, turning every failure into one clear line."""
        try:
            self.run(arg.strip())
        except (FeError, heapformat.FormatUnknown) as e:
            gdb.write(f"{self.name}: {e}\n")
        except gdb.MemoryError as e:
            gdb.write(f"{self.name}: cannot read guest memory ({e}): the "
                      f"structure is not mapped at this point\n")
        except gdb.error as e:
            gdb.write(f"{self.name}: {e}\n")
        except Exception as e:  # a bug here: still one line, never a traceback
            gdb.write(f"{self.name}: internal error in {type(self).__module__} "
                      f"(tools/gdb/): {type(e).__name__}: {e}\n")

    def run(self, arg):
        """The command's work (each command defines it)."""
        raise NotImplementedError


class FeFunction(gdb.Function):
    """A Ferrite convenience function: a FeError becomes gdb's one-line error."""

    def __init__(self, name):
        """Register $name."""
        super().__init__(name)
        self.name = name

    def invoke(self, *args):
        """Run the function; a FeError or a bad argument is a gdb error."""
        try:
            return self.value(*[int(a) for a in args])
        except (FeError, heapformat.FormatUnknown) as e:
            raise gdb.GdbError(f"${self.name}: {e}")
        except TypeError:
            raise gdb.GdbError(f"${self.name}: {self.__doc__.split(':', 1)[0]} "
                               f"takes {self.value.__code__.co_argcount - 1} argument(s)")
