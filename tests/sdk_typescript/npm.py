"""node_modules for every TypeScript test: clients/typescript's pinned devDependencies (TypeScript,
openapi-typescript, @types/node, playwright-core), installed in place with `npm ci` from its lock file,
once per lock (the next session reuses them while the lock is unchanged). tests/sdk_typescript and
tests/contract/test_typescript_client.py both use this one install.
"""

from __future__ import annotations

import fcntl
import shutil
import subprocess
from pathlib import Path

PACKAGE = Path(__file__).parents[2] / "clients" / "typescript"
NODE_MODULES = PACKAGE / "node_modules"
STAMP = NODE_MODULES / ".stela-installed-lock"


def node_modules() -> Path:
    """PACKAGE/node_modules, installed as the lock file says."""
    assert shutil.which("npm"), "Node.js and npm are needed (this machine's kind has them)"
    lock = (PACKAGE / "package-lock.json").read_text()
    # one install at a time in this folder, whichever process asks (`npm ci` empties node_modules first:
    # two at once fail with ENOTEMPTY, as they did in CI); the others wait, then find the stamp
    with open(PACKAGE / ".stela-install.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        if not STAMP.exists() or STAMP.read_text() != lock:
            done = subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], check=False, cwd=PACKAGE,
                                  capture_output=True, text=True, timeout=600)
            assert done.returncode == 0, done.stdout + done.stderr
            STAMP.write_text(lock)
    return NODE_MODULES
