"""Atomic file writes: write a temporary file next to the target, then ``os.replace``.

A reader never sees a half-written checkpoint: until the rename the old file (or no
file) is in place, and a failure while writing removes the temporary file again.
Every writer in symmod (``nd.save``, symbol JSON, optimizer states) goes through here.
"""
import contextlib
import os
import secrets

__all__ = ['atomic_open', 'atomic_write']

_TEXT_MODES = ('w', 'wt')
_BINARY_MODES = ('wb',)


def _temp_name(target):
    directory, base = os.path.split(target)
    # keep the name within NAME_MAX (255) even for a long target name
    return os.path.join(directory, '.%s.%s.tmp' % (base[:200], secrets.token_hex(6)))


def _create_temp(target):
    """Create a fresh temporary file beside ``target``; returns (fd, path).

    ``os.open`` with mode 0o666 lets the umask decide the permissions, as an ordinary
    ``open(fname, 'wb')`` would (``tempfile.mkstemp`` would leave the file 0600).
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0)
    while True:
        path = _temp_name(target)
        try:
            return os.open(path, flags, 0o666), path
        except FileExistsError:
            continue


def _fsync_directory(directory):
    """Make the rename itself durable where the platform allows it (POSIX)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


@contextlib.contextmanager
def atomic_open(fname, mode='wb', encoding=None, newline=None):
    """Open ``fname`` for writing so that it is replaced atomically on success.

    The data goes to a hidden temporary file in the same directory. When the ``with``
    block ends normally the file is flushed, synced to disk and renamed over ``fname``
    (following a symbolic link to its target). When the block raises, the temporary
    file is removed and ``fname`` is left as it was.

    Parameters
    ----------
    fname : str or os.PathLike
        The file to create or replace.
    mode : {'wb', 'w'}
        Binary or text writing.
    encoding : str, optional
        Text encoding for mode ``'w'`` (default ``'utf-8'``).
    newline : str, optional
        Passed to ``open`` in text mode.

    Yields
    ------
    file object
        The open temporary file.

    Examples
    --------
    >>> with atomic_open('model-symbol.json', 'w') as f:
    ...     f.write(json_text)
    """
    if mode not in _TEXT_MODES + _BINARY_MODES:
        raise ValueError("atomic_open: mode must be 'wb' or 'w', found %r" % (mode,))
    target = os.path.realpath(os.fspath(fname))
    fd, tmp = _create_temp(target)
    try:
        if mode in _BINARY_MODES:
            handle = os.fdopen(fd, 'wb')
        else:
            handle = os.fdopen(fd, 'w', encoding=encoding or 'utf-8', newline=newline)
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    try:
        with handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    _fsync_directory(os.path.dirname(target))


def atomic_write(fname, data):
    """Write ``data`` (bytes or str) to ``fname`` atomically.

    Parameters
    ----------
    fname : str or os.PathLike
        The file to create or replace.
    data : bytes, bytearray, memoryview or str
        The complete new contents; a str is written as UTF-8 text.

    Examples
    --------
    >>> atomic_write('notes.txt', 'hello')
    """
    if isinstance(data, str):
        with atomic_open(fname, 'w', encoding='utf-8', newline='') as f:
            f.write(data)
    else:
        with atomic_open(fname, 'wb') as f:
            f.write(data)
