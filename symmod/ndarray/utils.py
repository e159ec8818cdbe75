"""``mx.nd.save``, ``mx.nd.load`` and ``mx.nd.load_frombuffer``: MXNet's array files."""
from ..formats import params as _params

__all__ = ['save', 'load', 'load_frombuffer']


def save(fname, data):
    """Save an array, a list of arrays or a dict of named arrays to a file.

    The file uses MXNet's binary format, so MXNet 1.x can load it and a checkpoint
    written by MXNet loads back unchanged; saving what :func:`load` returned gives the
    same bytes. The write is atomic: the data goes to a temporary file in the same
    folder that then replaces ``fname``, so a failure leaves any old file intact.

    Parameters
    ----------
    fname : str
        The file name (an ``os.PathLike`` path works too).
    data : NDArray, list of NDArray or dict of str to NDArray
        What to save. numpy arrays are accepted in place of NDArrays. A dict keeps
        its insertion order in the file. Supported dtypes: float32, float64, float16,
        uint8, int8, int32, int64 and bool.

    Raises
    ------
    TypeError
        For a dict whose keys are not all str or whose values are not all arrays, or a
        list holding something other than arrays.
    ValueError
        When ``data`` is neither an array, a list nor a dict.
    MXNetError
        For an unsupported dtype or when the file cannot be written.

    Notes
    -----
    MXNet writes 0-d arrays only inside ``mx.util.np_shape(True)``. When ``data``
    holds a 0-d array, every record of the file is written in that mode's format (V3),
    as MXNet does; MXNet then loads the file inside ``np_shape(True)``.

    Examples
    --------
    >>> x = mx.nd.zeros((2, 3))
    >>> y = mx.nd.ones((1, 4))
    >>> mx.nd.save('my_list', [x, y])
    >>> mx.nd.save('my_dict', {'x': x, 'y': y})
    >>> mx.nd.load('my_list')
    [
    [[0. 0. 0.]
     [0. 0. 0.]]
    <NDArray 2x3 @cpu(0)>,
    [[1. 1. 1. 1.]]
    <NDArray 1x4 @cpu(0)>]
    """
    _params.save(fname, data)


def load(fname):
    """Load arrays from a file written by ``nd.save`` (MXNet's or symmod's).

    Every record kind MXNet has written is read: V2 (MXNet 1.x), V3 (numpy shape
    semantics, where 0-d arrays exist), V1 and the records of the oldest releases.

    Parameters
    ----------
    fname : str
        The file name.

    Returns
    -------
    list of NDArray, or dict of str to NDArray
        A list when the file has no names (a saved list or single array), otherwise a
        dict in the order the arrays were saved. Arrays are on ``cpu(0)`` with the
        file's dtypes. A file saved from an empty dict has no names and loads as ``[]``.

    Raises
    ------
    MXNetError
        When the file cannot be read or is not a complete, valid array file; the
        message names the file and what is wrong where. Nothing is returned partially.

    Examples
    --------
    >>> mx.nd.save('my_dict', {'x': mx.nd.zeros((2, 3))})
    >>> mx.nd.load('my_dict')['x'].shape
    (2, 3)
    """
    return _params.load(fname)


def load_frombuffer(buf):
    """Load arrays from the bytes of a file written by ``nd.save``.

    Parameters
    ----------
    buf : bytes
        The file contents (``bytearray`` and ``memoryview`` work too).

    Returns
    -------
    list of NDArray, or dict of str to NDArray
        As :func:`load`. The arrays are copies; ``buf`` may be reused afterwards.

    Raises
    ------
    TypeError
        When ``buf`` is not bytes-like.
    MXNetError
        When the bytes are not a complete, valid array file.

    Examples
    --------
    >>> with open('my_dict', 'rb') as f:
    ...     arrays = mx.nd.load_frombuffer(f.read())
    """
    return _params.load_frombuffer(buf)
