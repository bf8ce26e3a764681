"""``python3 -m shmem -n 4 script.py``: the same as ``python3 -m shmem.run``."""
import sys

from .run import main

sys.exit(main())
