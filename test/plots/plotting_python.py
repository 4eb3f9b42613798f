"""The python the plot tests run bench/plots/' scripts with: Debian's python3 (which
./kit gives python3-matplotlib), else this one, if it has matplotlib; None when
neither has it (the tests then skip)."""

import os
import subprocess
import sys


def plotting_python():
    for py in ("/usr/bin/python3", sys.executable):
        if py and os.access(py, os.X_OK) and subprocess.run(
                [py, "-c", "import matplotlib"], capture_output=True).returncode == 0:
            return py
    return None
