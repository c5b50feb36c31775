"""What a packager checks in the built archives (`make wheel-smoke`): both hold LICENSE and
py.typed, the sdist holds no tests, the wheel only the package and its metadata.

Usage: python .ci/check_archives.py DIST_FOLDER
"""

import sys
import tarfile
import zipfile
from pathlib import Path

dist = Path(sys.argv[1])
wheels, sdists = list(dist.glob("jaxenvs-*.whl")), list(dist.glob("jaxenvs-*.tar.gz"))
if len(wheels) != 1 or len(sdists) != 1:
    sys.exit(f"expected one wheel and one sdist in {dist}, got {[p.name for p in dist.iterdir()]}")
wheel = zipfile.ZipFile(wheels[0]).namelist()
with tarfile.open(sdists[0]) as tar:
    sdist = [name.split("/", 1)[1] for name in tar.getnames() if "/" in name]
problems = []
for name, files, needed in (
    ("wheel", wheel, ["jaxenvs/py.typed", "jaxenvs/fingerprints.json", "jaxenvs/__main__.py"]),
    ("sdist", sdist, ["LICENSE", "CHANGELOG.md", "README.md", "README.pypi.md", "jaxenvs/py.typed"]),
):
    problems += [f"the {name} lacks {f}" for f in needed if f not in files]
if not any(f.endswith(".dist-info/licenses/LICENSE") for f in wheel):
    problems.append("the wheel's metadata lacks licenses/LICENSE")
problems += [
    f"the wheel holds {f}, outside the package"
    for f in wheel
    if f.split("/")[0] != "jaxenvs" and ".dist-info/" not in f
]
problems += [f"the sdist holds a test, {f}" for f in sdist if f.startswith("tests/")]
problems += [
    f"the {n} holds the lab, {f}"
    for n, files in (("wheel", wheel), ("sdist", sdist))
    for f in files
    if f.startswith("lab/")
]
size = wheels[0].stat().st_size
print(f"{wheels[0].name}: {size / 1024:.0f} KiB, {len(wheel)} files; {sdists[0].name}: {len(sdist)} files")
sys.exit("\n".join(problems) if problems else 0)
