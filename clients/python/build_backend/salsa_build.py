"""A PEP 517 backend for salsa-client that needs nothing but the standard library.

pip builds a package in an isolated environment and fetches the backend's requirements from an
index; setuptools is such a requirement. This backend has none, so the client installs on a
machine with no index (Debian's Python and python3-requests). It writes one pure-Python wheel
(and an sdist) of the salsa_client package, with the metadata below.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "salsa_client"
DISTRIBUTION = "salsa-client"


def _version():
    with open(os.path.join(ROOT, NAME, "_client.py"), encoding="utf-8") as source:
        return re.search(r'^__version__ = "([^"]+)"', source.read(), re.M).group(1)


def _metadata():
    with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as readme:
        description = readme.read()
    return "\n".join([
        "Metadata-Version: 2.1",
        f"Name: {DISTRIBUTION}",
        f"Version: {_version()}",
        "Summary: Python client of the Salsa.Services workflow gateway's REST API (v1)",
        "Requires-Python: >=3.9",
        "Requires-Dist: requests>=2.25",
        "Provides-Extra: pandas",
        'Requires-Dist: pandas; extra == "pandas"',
        "Description-Content-Type: text/markdown",
        "",
        description,
    ])


def _sources():
    folder = os.path.join(ROOT, NAME)
    return sorted(f"{NAME}/{name}" for name in os.listdir(folder) if name.endswith(".py"))


def _record_line(path, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode("ascii")
    return f"{path},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    version = _version()
    info = f"{NAME}-{version}.dist-info"
    filename = f"{NAME}-{version}-py3-none-any.whl"
    files = [(path, open(os.path.join(ROOT, path), "rb").read()) for path in _sources()]
    files.append((f"{info}/METADATA", _metadata().encode("utf-8")))
    files.append((f"{info}/WHEEL", b"Wheel-Version: 1.0\nGenerator: salsa_build\nRoot-Is-Purelib: true\nTag: py3-none-any\n"))
    record = "\n".join([_record_line(path, data) for path, data in files] + [f"{info}/RECORD,,", ""])
    files.append((f"{info}/RECORD", record.encode("utf-8")))
    with zipfile.ZipFile(os.path.join(wheel_directory, filename), "w", zipfile.ZIP_DEFLATED) as wheel:
        for path, data in files:
            wheel.writestr(zipfile.ZipInfo(path, date_time=(2026, 1, 1, 0, 0, 0)), data)
    return filename


def build_sdist(sdist_directory, config_settings=None):
    base = f"{NAME}-{_version()}"
    filename = f"{base}.tar.gz"
    with tarfile.open(os.path.join(sdist_directory, filename), "w:gz") as sdist:
        for path in _sources() + ["pyproject.toml", "README.md", "build_backend/salsa_build.py"]:
            sdist.add(os.path.join(ROOT, path), arcname=f"{base}/{path}")
        info = tarfile.TarInfo(f"{base}/PKG-INFO")
        data = _metadata().encode("utf-8")
        info.size = len(data)
        sdist.addfile(info, io.BytesIO(data))
    return filename
