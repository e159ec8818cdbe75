"""Atomic file writes: write a temporary file next to the target, then ``os.replace``.

A reader never sees a half-written checkpoint: until the rename the old file (or no
file) is in place, and a failure while writing removes the temporary file again.
Every writer in symmod (``nd.save``, symbol JSON, optimizer states) goes through here.

- The temporary file is ``.<name>.<12 hex digits>.tmp``, locked (``flock``) while it is
  written. A process killed mid-write leaves it behind unlocked; the next save of the
  same target removes such leftovers (a locked one belongs to a live writer and stays).
- Replacing a file keeps its permission bits (and its owner where the user may set it).
"""
import contextlib
import os
import re
import secrets
import stat

try:
    import fcntl
except ImportError:        # not POSIX: no locks, so leftovers are not removed
    fcntl = None

from ..base import MXNetError

__all__ = ['atomic_open', 'atomic_write', 'remove_stale_temps']

_TEXT_MODES = ('w', 'wt')
_BINARY_MODES = ('wb',)


def _temp_prefix(target):
    directory, base = os.path.split(target)
    # keep the name within NAME_MAX (255) even for a long target name
    return directory, '.%s.' % base[:200]


def _temp_name(target):
    directory, prefix = _temp_prefix(target)
    return os.path.join(directory, '%s%s.tmp' % (prefix, secrets.token_hex(6)))


def _lock(fd):
    """Take an exclusive lock without waiting: True if taken, False if held elsewhere,
    None where the file system cannot lock (then no leftover is ever removed)."""
    if fcntl is None:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except BlockingIOError:
        return False
    except OSError:             # e.g. ENOLCK on some network file systems
        return None


def _create_temp(target):
    """Create and lock a fresh temporary file beside ``target``; returns (fd, path).

    ``os.open`` with mode 0o666 lets the umask decide the permissions, as an ordinary
    ``open(fname, 'wb')`` would (``tempfile.mkstemp`` would leave the file 0600); an
    existing target's mode is copied instead.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, 'O_BINARY', 0)
    while True:
        path = _temp_name(target)
        try:
            fd = os.open(path, flags, 0o666)
        except FileExistsError:
            continue
        _lock(fd)
        try:       # a cleaner may have taken it for a leftover before the lock: start over
            if os.path.samestat(os.fstat(fd), os.stat(path)):
                return fd, path
        except FileNotFoundError:
            pass
        os.close(fd)


def remove_stale_temps(target):
    """Remove temporary files of ``target`` left by writers that died (unlocked ones).

    Returns the number removed. Without ``fcntl`` (not POSIX) nothing is removed.
    """
    if fcntl is None:
        return 0
    directory, prefix = _temp_prefix(target)
    pattern = re.compile(re.escape(prefix) + r'[0-9a-f]{12}\.tmp\Z')
    removed = 0
    try:
        entries = [e.name for e in os.scandir(directory or '.') if pattern.match(e.name)]
    except OSError:
        return 0
    for name in entries:
        path = os.path.join(directory, name)
        try:
            fd = os.open(path, os.O_RDONLY)
        except OSError:
            continue
        try:
            if _lock(fd) is True:   # no live writer holds it
                os.unlink(path)
                removed += 1
        except OSError:
            pass
        finally:
            os.close(fd)
    return removed


def _keep_mode(fd, path, target):
    """Give the new file the permission bits (and owner, if allowed) of the one it replaces."""
    try:
        old = os.stat(target)
    except FileNotFoundError:
        return
    if hasattr(os, 'fchmod'):
        os.fchmod(fd, stat.S_IMODE(old.st_mode))
    else:
        os.chmod(path, stat.S_IMODE(old.st_mode))
    if hasattr(os, 'fchown'):
        new = os.fstat(fd)
        if (new.st_uid, new.st_gid) != (old.st_uid, old.st_gid):
            with contextlib.suppress(OSError):      # only root may give files away
                os.fchown(fd, old.st_uid, old.st_gid)


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
    remove_stale_temps(target)
    fd, tmp = _create_temp(target)
    try:
        _keep_mode(fd, tmp, target)
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

    Raises
    ------
    MXNetError
        When the file cannot be written (a full disk, no permission ...), naming it.

    Examples
    --------
    >>> atomic_write('notes.txt', 'hello')
    """
    try:
        if isinstance(data, str):
            with atomic_open(fname, 'w', encoding='utf-8', newline='') as f:
                f.write(data)
        else:
            with atomic_open(fname, 'wb') as f:
                f.write(data)
    except OSError as err:
        raise MXNetError('%s: cannot write the file: %s' % (os.fspath(fname), err)) from err
