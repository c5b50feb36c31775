"""The MNIST training set for `MNISTBandit`: idx files read from a directory, never bundled.

Where the files are looked for, in order:

1. `data_dir`, when given (`MNISTBandit(data_dir=...)`);
2. the directory in the environment variable `JAXENVS_MNIST_DIR` (what `jaxenvs.make` uses);
3. the cache directory `$XDG_CACHE_HOME/jaxenvs/mnist` (default `~/.cache/jaxenvs/mnist`),
   which is filled by downloading the two files from the mirrors below when the network
   allows (`download=True`, the default).

Each directory must hold `train-images-idx3-ubyte` and `train-labels-idx1-ubyte`, plain or
gzipped (`.gz`), as distributed. With none of them, `DataNotFoundError` (a
`FileNotFoundError`) says exactly how to provide the data.

`read_idx` parses the idx format itself (magic number: two zero bytes, a type code, the
number of dimensions; then one big-endian uint32 per dimension; then the data, big-endian);
`write_idx` writes it (to make small data sets for tests).
"""

from __future__ import annotations

import gzip
import os
import shutil
import struct
import tempfile
import urllib.request
from pathlib import Path

import numpy as np

ENV_VAR = "JAXENVS_MNIST_DIR"
IMAGES = "train-images-idx3-ubyte"
LABELS = "train-labels-idx1-ubyte"
# bsuite downloads from the first; the second is PyTorch's mirror of the same files
MIRRORS = (
    "https://storage.googleapis.com/cvdf-datasets/mnist/",
    "https://ossci-datasets.s3.amazonaws.com/mnist/",
)
DOWNLOAD_TIMEOUT_S = 30

# idx type codes -> big-endian numpy dtypes
_IDX_DTYPES = {
    0x08: np.dtype(np.uint8),
    0x09: np.dtype(np.int8),
    0x0B: np.dtype(">i2"),
    0x0C: np.dtype(">i4"),
    0x0D: np.dtype(">f4"),
    0x0E: np.dtype(">f8"),
}


class DataNotFoundError(FileNotFoundError):
    """A data set an environment needs is not where it was looked for; the message says how
    to provide it.
    """


def cache_dir() -> Path:
    """The cache directory the MNIST files are looked for in and downloaded to.

    Returns:
        `$XDG_CACHE_HOME/jaxenvs/mnist`, by default `~/.cache/jaxenvs/mnist`.
    """
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "jaxenvs" / "mnist"


def _open(path: Path):
    return gzip.open(path, "rb") if path.suffix == ".gz" else open(path, "rb")


def read_idx(path: str | os.PathLike) -> np.ndarray:
    """The array stored in an idx file.

    Args:
        path: The file, gzipped if its name ends in `.gz`.

    Returns:
        The array, with the shape and dtype its header gives, in native byte order.

    Raises:
        ValueError: If the file is not an idx file, or its size does not match its header.
    """
    path = Path(path)
    with _open(path) as f:
        data = f.read()
    if len(data) < 4 or data[0] != 0 or data[1] != 0 or data[2] not in _IDX_DTYPES:
        raise ValueError(f"{path} is not an idx file (magic number {data[:4].hex() or 'missing'})")
    dtype, ndim = _IDX_DTYPES[data[2]], data[3]
    header = 4 + 4 * ndim
    if len(data) < header:
        raise ValueError(f"{path}: idx header truncated")
    shape = struct.unpack(f">{ndim}I", data[4:header])
    count = int(np.prod(shape, dtype=np.int64))
    if len(data) - header != count * dtype.itemsize:
        raise ValueError(
            f"{path}: idx header says {shape} of {dtype} ({count * dtype.itemsize} bytes), "
            f"the file holds {len(data) - header}"
        )
    return np.frombuffer(data, dtype=dtype, offset=header).reshape(shape).astype(dtype.newbyteorder("="))


def write_idx(path: str | os.PathLike, array: np.ndarray) -> Path:
    """Write an array as an idx file (to make small data sets for tests).

    Args:
        path: The file to write, gzipped if its name ends in `.gz`.
        array: The array; its dtype must be one idx stores (uint8, int8, int16, int32,
            float32, float64).

    Returns:
        `path`, as a `Path`.

    Raises:
        ValueError: If idx cannot store the array's dtype.
    """
    path = Path(path)
    array = np.asarray(array)
    codes = {dt.newbyteorder("=") if dt.byteorder == ">" else dt: code for code, dt in _IDX_DTYPES.items()}
    code = codes.get(array.dtype)
    if code is None:
        raise ValueError(f"idx cannot store {array.dtype}")
    payload = struct.pack(">BBBB", 0, 0, code, array.ndim) + struct.pack(f">{array.ndim}I", *array.shape)
    payload += array.astype(_IDX_DTYPES[code]).tobytes()
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "wb") as f:
        f.write(payload)
    return path


def _find(directory: Path, stem: str) -> Path | None:
    for name in (stem, stem + ".gz"):
        if (directory / name).is_file():
            return directory / name
    return None


def _has_files(directory: Path) -> bool:
    return _find(directory, IMAGES) is not None and _find(directory, LABELS) is not None


def _fetch(url: str, target: Path) -> None:
    """Download `url` to `target` through a temporary file, so `target` is whole or absent."""
    fd, part = tempfile.mkstemp(dir=target.parent, suffix=".gz.part")
    try:
        with os.fdopen(fd, "wb") as out, urllib.request.urlopen(url, timeout=DOWNLOAD_TIMEOUT_S) as response:
            shutil.copyfileobj(response, out)
        with gzip.open(part, "rb") as f:  # a truncated or non-gzip answer fails here
            f.read(4)
        os.replace(part, target)
    finally:
        if os.path.exists(part):
            os.unlink(part)


def _download(directory: Path) -> None:
    """Fetch both gzipped files into `directory`, trying each mirror in turn."""
    directory.mkdir(parents=True, exist_ok=True)
    for stem in (IMAGES, LABELS):
        if _find(directory, stem) is not None:
            continue
        errors = []
        for mirror in MIRRORS:
            try:
                _fetch(mirror + stem + ".gz", directory / (stem + ".gz"))
                break
            except OSError as e:  # URLError, timeouts, bad gzip and disk errors are OSErrors
                errors.append(f"{mirror}{stem}.gz: {e}")
        else:
            raise OSError("; ".join(errors))


def _instructions(reason: str) -> str:
    return (
        f"MNISTBandit needs the MNIST training set, and {reason}.\n"
        f"Provide the files {IMAGES} and {LABELS} (plain or .gz, as distributed by\n"
        f"{MIRRORS[0]}) in one of these ways:\n"
        f"  1. put them in a directory and pass it: MNISTBandit(data_dir='/path/to/mnist');\n"
        f"  2. or set the environment variable {ENV_VAR}=/path/to/mnist (this is what\n"
        f"     jaxenvs.make('MNISTBandit-bsuite') and the bsuite/mnist* sweep ids use);\n"
        f"  3. or put them in the cache directory {cache_dir()};\n"
        f"  4. or run once where the network allows: they are downloaded into that cache."
    )


def locate(data_dir: str | os.PathLike | None = None, download: bool = True) -> Path:
    """The directory holding both MNIST files, looked for in the order of the module docstring.

    Args:
        data_dir: The directory to use; None looks in `$JAXENVS_MNIST_DIR`, then in the cache.
        download: Whether to download the files into the cache when it is empty and no
            directory is given.

    Returns:
        The directory.

    Raises:
        DataNotFoundError: If the given directory lacks a file, or the cache is empty and
            downloading is off or fails; the message says how to provide the files.
    """
    if data_dir is not None or os.environ.get(ENV_VAR):
        given = Path(data_dir if data_dir is not None else os.environ[ENV_VAR]).expanduser()
        where = "data_dir" if data_dir is not None else f"${ENV_VAR}"
        if not _has_files(given):
            raise DataNotFoundError(_instructions(f"{where}={str(given)!r} does not hold both files"))
        return given
    cached = cache_dir()
    if _has_files(cached):
        return cached
    if not download:
        raise DataNotFoundError(_instructions(f"none was given and the cache {cached} is empty (download=False)"))
    try:
        _download(cached)
    except OSError as e:
        raise DataNotFoundError(
            _instructions(f"none was given, the cache {cached} is empty, and downloading failed ({e})")
        ) from e
    return cached


def load_mnist(data_dir: str | os.PathLike | None = None, download: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The MNIST training set, from the directory `locate` finds.

    Args:
        data_dir: The directory to use; None looks in `$JAXENVS_MNIST_DIR`, then in the cache.
        download: Whether to download the files into an empty cache (see `locate`).

    Returns:
        `(images, labels)`: `uint8[N, rows, cols]` and `uint8[N]` (N = 60,000 for MNIST).

    Raises:
        DataNotFoundError: If the files are not found (see `locate`).
        ValueError: If the files are not idx files, or do not hold images `[N, rows, cols]` and
            labels `[N]`.
    """
    directory = locate(data_dir, download)
    images = read_idx(_find(directory, IMAGES))
    labels = read_idx(_find(directory, LABELS))
    if images.ndim != 3 or labels.ndim != 1 or len(images) != len(labels):
        raise ValueError(
            f"{directory}: expected images [N, rows, cols] and labels [N], got {images.shape} and {labels.shape}"
        )
    return images.astype(np.uint8), labels.astype(np.uint8)
