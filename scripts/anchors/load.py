# A second job that takes the cores: `make anchors LOAD=1` runs one of these per core,
# each in a session of its own (as a job started from another terminal is), for the
# whole comparison. Seeded arithmetic on Python floats, no memory traffic to speak of.
#
# Run: `python3 scripts/anchors/load.py SEED` (runs until it is killed).

import random
import sys

random.seed(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
x = 0.0
while True:
    for _ in range(100_000):
        x = (x * 1.0000001 + random.random()) % 1e6
