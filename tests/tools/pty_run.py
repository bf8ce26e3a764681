#!/usr/bin/env python3
"""pty_run.py CMD [ARGS...]: runs CMD with stdout and stderr on a new pseudo-terminal and stdin
from /dev/null, copies what it writes to our stdout (carriage returns of the terminal's output
processing removed) and exits with CMD's status (128 + n for a signal). For tests of programs
that behave differently on a terminal (oshrun gives its PEs one then)."""
import os
import subprocess
import sys


def main() -> int:
    master, slave = os.openpty()
    proc = subprocess.Popen(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: every holder of the terminal's other side has closed it
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    rc = proc.wait()
    sys.stdout.buffer.write(b"".join(chunks).replace(b"\r\n", b"\n"))
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())
