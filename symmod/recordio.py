"""``mx.recordio``: read and write MXNet's RecordIO files (``.rec``) and their ``.idx`` index.

A ``.rec`` file (dmlc-core's RecordIO) is a sequence of records, each stored as

```
u32 magic 0xced7230a
u32 lrec           bits 29-31: continuation flag, bits 0-28: length of this part
data               length bytes
pad                zero bytes up to the next multiple of 4
```

A payload that holds the magic number at an offset divisible by 4 is cut there
and stored as several parts (flags 1 = first, 2 = middle, 3 = last; 0 = a whole
record); the magic words at the cuts are dropped and put back when reading. An
``.idx`` file is text, one ``key<TAB>byte offset`` line per record.

Image records start with a 24-byte header (``IRHeader``: u32 flag, f32 label,
u64 id, u64 id2); a flag > 0 means ``flag`` float32 labels follow the header.
Images are encoded and decoded with Pillow, and handed out in OpenCV's channel
order (BGR), as MXNet's OpenCV-based functions do.
"""
import io
import numbers
import os
import struct
from collections import namedtuple
from multiprocessing import current_process

import numpy as np

from .base import MXNetError

__all__ = ['MXRecordIO', 'MXIndexedRecordIO', 'IRHeader', 'pack', 'unpack',
           'pack_img', 'unpack_img', 'RECORD_MAGIC']

RECORD_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack('<I', RECORD_MAGIC)
_LENGTH_BITS = 29
_MAX_LENGTH = (1 << _LENGTH_BITS) - 1


def _aligned(length):
    """``length`` rounded up to a multiple of 4."""
    return (length + 3) & ~3


def encode_record(buf):
    """The bytes that store ``buf`` as one record (header(s), data, padding)."""
    size = len(buf)
    if size > _MAX_LENGTH:
        raise MXNetError('RecordIO only accepts records shorter than 2^29 bytes, found %d'
                         % size)
    # magic words at 4-byte aligned offsets of the payload split it into parts
    words = np.frombuffer(buf, dtype='<u4', count=size // 4)
    cuts = (np.flatnonzero(words == RECORD_MAGIC) * 4).tolist()
    out = []
    start = 0
    for cut in cuts:
        flag = 1 if start == 0 else 2
        out.append(struct.pack('<II', RECORD_MAGIC, (flag << _LENGTH_BITS) | (cut - start)))
        out.append(buf[start:cut])
        start = cut + 4
    flag = 3 if start != 0 else 0
    out.append(struct.pack('<II', RECORD_MAGIC, (flag << _LENGTH_BITS) | (size - start)))
    out.append(buf[start:])
    out.append(b'\x00' * (_aligned(size) - size))
    return b''.join(out)


def read_record(f, uri):
    """Read the record at the current position of the binary file ``f``.

    Returns the payload (bytes), or None at the end of the file. A truncated
    or corrupt record raises MXNetError naming ``uri`` and the byte offset.
    """
    parts = []
    start = f.tell()
    while True:
        offset = f.tell()
        head = f.read(8)
        if not head and not parts:
            return None
        if len(head) < 8:
            where = ('inside the record that starts at offset %d' % start) if parts else ''
            raise MXNetError('Invalid RecordIO File "%s": truncated record header at offset '
                             '%d (%d of 8 bytes) %s' % (uri, offset, len(head), where))
        magic, lrec = struct.unpack('<II', head)
        if magic != RECORD_MAGIC:
            raise MXNetError('Invalid RecordIO File "%s": expected the magic number 0x%08x at '
                             'offset %d, found 0x%08x' % (uri, RECORD_MAGIC, offset, magic))
        flag, length = lrec >> _LENGTH_BITS, lrec & _MAX_LENGTH
        if flag > 3 or (flag in (2, 3)) != bool(parts):
            raise MXNetError('Invalid RecordIO File "%s": unexpected continuation flag %d at '
                             'offset %d' % (uri, flag, offset))
        body = f.read(_aligned(length))
        if len(body) < _aligned(length):
            raise MXNetError('Invalid RecordIO File "%s": the record part at offset %d '
                             'declares %d bytes but the file ends after %d'
                             % (uri, offset, length, len(body)))
        parts.append(body[:length])
        if flag in (0, 3):
            return _MAGIC_BYTES.join(parts)


def record_offsets(path):
    """Byte offsets of the records in the ``.rec`` file ``path`` (heads only)."""
    offsets = []
    size = os.path.getsize(path)
    with open(path, 'rb') as f:
        pos = 0
        in_record = False
        while pos < size:
            f.seek(pos)
            head = f.read(8)
            if len(head) < 8:
                raise MXNetError('Invalid RecordIO File "%s": truncated record header at '
                                 'offset %d' % (path, pos))
            magic, lrec = struct.unpack('<II', head)
            if magic != RECORD_MAGIC:
                raise MXNetError('Invalid RecordIO File "%s": expected the magic number '
                                 '0x%08x at offset %d, found 0x%08x'
                                 % (path, RECORD_MAGIC, pos, magic))
            flag = lrec >> _LENGTH_BITS
            if flag in (0, 1):
                if in_record:
                    raise MXNetError('Invalid RecordIO File "%s": a new record starts at '
                                     'offset %d inside a multi-part record' % (path, pos))
                offsets.append(pos)
            in_record = flag in (1, 2)
            pos += 8 + _aligned(lrec & _MAX_LENGTH)
            if pos > size:
                raise MXNetError('Invalid RecordIO File "%s": the record part at offset %d '
                                 'runs past the end of the file (%d bytes)'
                                 % (path, pos - 8 - _aligned(lrec & _MAX_LENGTH), size))
        if in_record:
            raise MXNetError('Invalid RecordIO File "%s": the file ends inside a multi-part '
                             'record' % path)
    return offsets


class MXRecordIO:
    """Read or write a RecordIO file sequentially.

    Parameters
    ----------
    uri : str
        Path of the record file.
    flag : str
        ``'w'`` to write (the file is truncated) or ``'r'`` to read.

    Examples
    --------
    >>> record = mx.recordio.MXRecordIO('tmp.rec', 'w')
    >>> for i in range(3):
    ...     record.write(b'record_%d' % i)
    >>> record.close()
    >>> record = mx.recordio.MXRecordIO('tmp.rec', 'r')
    >>> record.read()
    b'record_0'
    """

    def __init__(self, uri, flag):
        self.uri = str(uri)
        self.handle = None
        self.flag = flag
        self.pid = None
        self.is_open = False
        self.open()

    def open(self):
        """Open the file (for writing, this empties it)."""
        if self.flag == 'w':
            mode, self.writable = 'wb', True
        elif self.flag == 'r':
            mode, self.writable = 'rb', False
        else:
            raise ValueError('Invalid flag %s' % self.flag)
        try:
            self.handle = open(self.uri, mode)
        except OSError as err:
            raise MXNetError('RecordIO: cannot open "%s" for %s: %s'
                             % (self.uri, 'writing' if self.writable else 'reading',
                                err.strerror)) from None
        self.pid = current_process().pid
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        # as MXNet: pickling closes this object; the copy reopens the file
        is_open = self.is_open
        self.close()
        state = dict(self.__dict__)
        state['is_open'] = is_open
        del state['handle']
        return state

    def __setstate__(self, state):
        self.__dict__ = state
        is_open = state['is_open']
        self.is_open = False
        self.handle = None
        if is_open:
            self.open()

    def _check_pid(self, allow_reset=False):
        """Refuse to use a handle opened in another process (or reopen it)."""
        if self.pid != current_process().pid:
            if allow_reset:
                self.reset()
            else:
                raise RuntimeError('Forbidden operation in multiple processes')

    def close(self):
        """Close the file."""
        if not getattr(self, 'is_open', False):
            return
        self.handle.close()
        self.is_open = False
        self.pid = None

    def reset(self):
        """Go back to the first record (for a writer: empty the file again)."""
        self.close()
        self.open()

    def write(self, buf):
        """Append ``buf`` (bytes) as one record.

        Parameters
        ----------
        buf : bytes
            The record's payload.
        """
        assert self.writable
        self._check_pid(allow_reset=False)
        if not isinstance(buf, (bytes, bytearray, memoryview)):
            raise TypeError('MXRecordIO.write expects bytes, found %s' % type(buf).__name__)
        self.handle.write(encode_record(bytes(buf)))

    def read(self):
        """Read the next record.

        Returns
        -------
        bytes or None
            The payload, or None after the last record.
        """
        assert not self.writable
        self._check_pid(allow_reset=False)
        return read_record(self.handle, self.uri)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with an index file, for reading records by key.

    Parameters
    ----------
    idx_path : str
        Path of the index file (text: ``key<TAB>offset`` per line).
    uri : str
        Path of the record file.
    flag : str
        ``'w'`` to write or ``'r'`` to read.
    key_type : type, optional
        Type the keys are converted to (default int).

    Examples
    --------
    >>> record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'w')
    >>> for i in range(5):
    ...     record.write_idx(i, b'record_%d' % i)
    >>> record.close()
    >>> record = mx.recordio.MXIndexedRecordIO('tmp.idx', 'tmp.rec', 'r')
    >>> record.read_idx(3)
    b'record_3'
    """

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = idx_path
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super(MXIndexedRecordIO, self).__init__(uri, flag)

    def open(self):
        super(MXIndexedRecordIO, self).open()
        self.idx = {}
        self.keys = []
        self.fidx = open(self.idx_path, self.flag)
        if not self.writable:
            self._read_index()

    def _read_index(self):
        """Parse the ``key<TAB>offset`` lines; a bad line is an MXNetError naming it."""
        try:
            lines = self.fidx.read().splitlines()
        except UnicodeDecodeError as err:
            raise MXNetError('MXIndexedRecordIO: "%s" is not text: %s'
                             % (self.idx_path, err)) from None
        for number, line in enumerate(lines):
            fields = line.strip().split('\t')
            try:
                if len(fields) < 2:
                    raise ValueError('expected "key<TAB>offset"')
                key = self.key_type(fields[0])
                offset = int(fields[1])
                if offset < 0:
                    raise ValueError('a negative offset')
            except (TypeError, ValueError) as err:
                raise MXNetError('MXIndexedRecordIO: line %d of "%s" should be '
                                 '"key<TAB>offset", found %r (%s)'
                                 % (number + 1, self.idx_path, line[:80], err)) from None
            self.idx[key] = offset
            self.keys.append(key)

    def close(self):
        """Close the record and index files."""
        if not getattr(self, 'is_open', False):
            return
        super(MXIndexedRecordIO, self).close()
        self.fidx.close()

    def __getstate__(self):
        state = super(MXIndexedRecordIO, self).__getstate__()
        state['fidx'] = None
        return state

    def seek(self, idx):
        """Move the read position to the record with key ``idx``."""
        assert not self.writable
        self._check_pid(allow_reset=True)
        self.handle.seek(self.idx[idx])

    def tell(self):
        """The byte offset where the next record will be written."""
        assert self.writable
        return self.handle.tell()

    def read_idx(self, idx):
        """Read the record with key ``idx``.

        Returns
        -------
        bytes
        """
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Write ``buf`` as a record under key ``idx``.

        Parameters
        ----------
        idx : key_type
            The key.
        buf : bytes
            The record's payload.
        """
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write('%s\t%d\n' % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple('HEADER', ['flag', 'label', 'id', 'id2'])
IRHeader.__doc__ = """Header of an image record.

Parameters
----------
flag : int
    0 for a single label; set by ``pack`` to the number of labels otherwise.
label : float or array of float
    The label(s).
id : int
    Id of the record (im2rec writes the image's index).
id2 : int
    High bits of the id, usually 0.
"""
_IR_FORMAT = '<IfQQ'
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """Prefix ``s`` with an image-record header.

    Parameters
    ----------
    header : IRHeader
        The header; ``label`` may be a number or an array (then the flag
        becomes the number of labels and the labels follow the header).
    s : bytes
        The payload (usually an encoded image).

    Returns
    -------
    bytes

    Examples
    --------
    >>> rec = mx.recordio.pack(mx.recordio.IRHeader(0, [1, 2, 3], 7, 0), b'img')
    >>> mx.recordio.unpack(rec)[0].flag
    3
    """
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """Split an image record into its header and payload.

    Parameters
    ----------
    s : bytes
        A record from ``MXRecordIO.read``.

    Returns
    -------
    header : IRHeader
        The header (``label`` is a float32 array when ``flag > 0``).
    s : bytes
        The payload.
    """
    if s is None:
        raise MXNetError('recordio.unpack: no record (None): MXRecordIO.read() returns None '
                         'after the last record of a file')
    if not isinstance(s, (bytes, bytearray, memoryview)):
        raise MXNetError('recordio.unpack: a record must be bytes, found %s'
                         % type(s).__name__)
    if len(s) < _IR_SIZE:
        raise MXNetError('recordio.unpack: a record needs a %d-byte header, found %d bytes'
                         % (_IR_SIZE, len(s)))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        if len(s) < 4 * header.flag:
            raise MXNetError('recordio.unpack: the header announces %d labels (%d bytes) but '
                             'only %d bytes follow it' % (header.flag, 4 * header.flag, len(s)))
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _pil():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError('mx.recordio image functions need Pillow (pip install Pillow)') \
            from None
    return Image


def decode_image(buf, iscolor=-1):
    """Decode image bytes to a uint8 array in OpenCV's layout and channel order.

    ``iscolor`` follows ``cv2.imdecode``: 0 gray ``(h, w)``, > 0 colour
    ``(h, w, 3)`` BGR, < 0 as stored (gray 2-D, colour BGR, with alpha BGRA).
    Returns None when the bytes are not a readable image (as OpenCV does); an image
    of more than ``mx.image.get_max_image_pixels()`` pixels is an MXNetError.
    """
    from .image.opencv import open_image, gray_pixels
    _pil()      # a clear ImportError when Pillow is missing
    try:
        img = open_image(buf, gray=iscolor == 0)
    except MXNetError:  # an image over the pixel limit: say so rather than return None
        raise
    except Exception:   # Pillow raises many types for bad data; OpenCV returns None
        return None
    if iscolor == 0:
        return gray_pixels(img)[:, :, 0]
    if iscolor < 0:
        if img.mode in ('L', 'I;16', 'I;16B', 'I;16L'):
            return np.asarray(img)
        has_alpha = img.mode in ('RGBA', 'LA', 'PA') or (
            img.mode == 'P' and 'transparency' in img.info)
        if has_alpha:
            return np.ascontiguousarray(np.asarray(img.convert('RGBA'))[:, :, [2, 1, 0, 3]])
    return np.ascontiguousarray(np.asarray(img.convert('RGB'))[:, :, ::-1])


def unpack_img(s, iscolor=-1):
    """Split an image record into its header and decoded image.

    Parameters
    ----------
    s : bytes
        A record from ``MXRecordIO.read``.
    iscolor : int, optional
        As ``cv2.imdecode``'s flag: -1 keeps the stored channels, 0 gray,
        1 colour. Colour images come back in BGR order, as OpenCV gives them.

    Returns
    -------
    header : IRHeader
    img : numpy.ndarray
        uint8 ``(h, w)`` or ``(h, w, channels)``; None if undecodable.
    """
    header, s = unpack(s)
    return header, decode_image(s, iscolor)


def pack_img(header, img, quality=95, img_fmt='.jpg'):
    """Encode an image and prefix it with an image-record header.

    Parameters
    ----------
    header : IRHeader
        The header (see ``pack``).
    img : numpy.ndarray
        uint8 image, ``(h, w)`` gray or ``(h, w, 3)`` BGR / ``(h, w, 4)`` BGRA
        (OpenCV's order, as MXNet takes it).
    quality : int, optional
        JPEG quality (1-100), or PNG compression level for ``'.png'`` (clamped to 0-9).
    img_fmt : str, optional
        ``'.jpg'`` / ``'.jpeg'`` or ``'.png'`` (others by Pillow's extension map).

    Returns
    -------
    bytes
    """
    Image = _pil()
    img = np.asarray(img)
    if img.dtype != np.uint8:
        raise MXNetError('pack_img: expected a uint8 image, found %s' % img.dtype)
    if img.ndim == 3 and img.shape[2] == 1:
        img = img[:, :, 0]
    if img.ndim == 3 and img.shape[2] in (3, 4):
        order = [2, 1, 0] if img.shape[2] == 3 else [2, 1, 0, 3]
        img = np.ascontiguousarray(img[:, :, order])
    elif img.ndim != 2:
        raise MXNetError('pack_img: expected an (h, w), (h, w, 3) or (h, w, 4) image, '
                         'found shape %s' % (img.shape,))
    fmt = img_fmt.upper().lstrip('.')
    out = io.BytesIO()
    picture = Image.fromarray(img)
    if fmt in ('JPG', 'JPEG'):
        picture.save(out, 'JPEG', quality=quality)
    elif fmt == 'PNG':
        # OpenCV clamps the PNG compression level to 0-9, so the default 95 means 9
        picture.save(out, 'PNG', compress_level=min(max(int(quality), 0), 9))
    else:
        name = Image.registered_extensions().get('.' + fmt.lower())
        assert name is not None, 'failed to encode image'
        picture.save(out, name)
    return pack(header, out.getvalue())
