"""One warning when class labels fall outside the classes a loss or metric has.

MXNet trains silently on such labels (their rows get no pull toward any class, or are
clipped to the last class) and accuracy stays near zero; symmod says so once. Callers
check only where it costs nothing (a count they already have) or once per epoch.
"""
import warnings

import numpy as np


def warn_out_of_range(where, labels, classes, ignore_label=None, consequence=None):
    """Warn (once per message) when ``labels`` holds a value outside ``0..classes-1``.

    Parameters
    ----------
    where : str
        What reads the labels, e.g. ``"SoftmaxOutput"`` or ``"Accuracy"``.
    labels : numpy.ndarray
        Class indices (any shape; truncated to integers as the kernels do).
    classes : int
        The number of classes.
    ignore_label : int, optional
        A label value that is allowed outside the range (``use_ignore``).
    consequence : str, optional
        What happens to such labels there.

    Returns
    -------
    bool
        True when a warning was due.
    """
    labels = np.asarray(labels).reshape(-1).astype(np.int64)
    bad = (labels < 0) | (labels >= classes)
    if ignore_label is not None:
        bad &= labels != int(ignore_label)
    if not bad.any():
        return False
    found = np.unique(labels[bad])
    shown = ', '.join(str(v) for v in found[:5]) + (', ...' if found.size > 5 else '')
    warnings.warn('%s: label%s %s outside the %d classes (valid labels are 0..%d)%s; check the '
                  'labels and the number of classes (num_hidden of the last layer)'
                  % (where, 's' if found.size > 1 else '', shown, classes, classes - 1,
                     '' if consequence is None else ': ' + consequence),
                  UserWarning, stacklevel=3)
    return True
