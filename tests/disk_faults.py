"""A full disk for the atomic-write tests: writes to chosen files fail with ENOSPC."""
import errno
import os


class FullFile:
    """A file object whose writes fail as on a full disk."""

    def __init__(self, handle):
        self.handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, 'No space left on device')

    def __getattr__(self, name):
        return getattr(self.handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.handle.close()


def full_disk_opener(opener, name_part):
    """``opener`` (``open`` or ``os.fdopen``) whose handles written to a path containing
    ``name_part`` fail (an fd's path read from /proc)."""
    def wrapped(target, *args, **kwargs):
        handle = opener(target, *args, **kwargs)
        path = os.readlink('/proc/self/fd/%d' % target) if isinstance(target, int) \
            else str(target)
        writing = 'w' in (args[0] if args else kwargs.get('mode', 'r'))
        return FullFile(handle) if writing and name_part in path else handle
    return wrapped
