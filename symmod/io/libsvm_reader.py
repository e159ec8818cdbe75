"""Reading LibSVM text files into ``scipy.sparse`` CSR matrices, split into parts by bytes
as MXNet's (dmlc-core's) line reader splits them.

A line is ``label[:weight] [qid:n] index:value index:value ...`` with zero-based, ascending
column indices; blank lines are skipped.
"""
import os

import numpy as np
import scipy.sparse as spsp

from ..base import MXNetError

__all__ = ['libsvm_files', 'part_lines', 'read_libsvm']


def libsvm_files(path, what):
    """The files behind ``path``: itself, or the files of a directory in name order."""
    if os.path.isdir(path):
        names = sorted(name for name in os.listdir(path)
                       if os.path.isfile(os.path.join(path, name)))
        return [os.path.join(path, name) for name in names]
    if not os.path.isfile(path):
        raise MXNetError('LibSVMIter: %s "%s": No such file or directory' % (what, path))
    return [path]


def part_lines(files, num_parts, part_index):
    """The non-blank lines of part ``part_index`` of ``num_parts``, as (file, line number,
    text) in file order.

    The files are taken as one stream of bytes cut into ``num_parts`` equal byte ranges; a
    line belongs to the range holding the newline before it (a file's first line: the range
    holding its first byte). So parts hold about equal bytes, not equal rows, as in MXNet.
    """
    blobs = []
    for name in files:
        with open(name, 'rb') as f:
            blobs.append(f.read())
    total = sum(len(b) for b in blobs)
    step = max(1, -(-total // num_parts))
    lines, offset = [], 0
    for name, blob in zip(files, blobs):
        start = 0
        for number, raw in enumerate(blob.splitlines(keepends=True)):
            where = offset + start
            owner = where // step if start == 0 else (where - 1) // step
            start += len(raw)
            if owner == part_index and raw.strip():
                lines.append((name, number + 1, raw.decode('utf-8', 'replace')))
        offset += len(blob)
    return lines


def _parse_line(name, number, text, width):
    """(label, column indices, values) of one line; clear errors for what MXNet garbles."""
    tokens = text.split()
    try:
        label = float(tokens[0].split(':')[0])
        pairs = [t.split(':') for t in tokens[1:] if not t.startswith('qid:')]
        columns = [int(p[0]) for p in pairs]
        values = [float(p[1]) for p in pairs]
    except (ValueError, IndexError):
        raise MXNetError('LibSVMIter: cannot parse line %d of "%s" (expected "label '
                         'index:value ..."): %r' % (number, name, text.strip()[:80])) from None
    bad = [c for c in columns if not 0 <= c < width]
    if bad:
        raise MXNetError('LibSVMIter: line %d of "%s" has column index %d, outside the shape '
                         '(%d,) (indices are zero-based)' % (number, name, bad[0], width))
    return label, columns, values


def read_libsvm(path, width, num_parts, part_index, what='data_libsvm'):
    """Read part ``part_index`` of ``num_parts`` of a LibSVM file or directory.

    Returns
    -------
    (labels, matrix) : float32 array of the rows' labels, float32 ``scipy.sparse``
    csr_matrix of shape (rows, width) with sorted column indices.
    """
    lines = part_lines(libsvm_files(path, what), num_parts, part_index)
    labels = np.empty(len(lines), dtype=np.float32)
    indptr = np.zeros(len(lines) + 1, dtype=np.int64)
    columns, values = [], []
    for row, (name, number, text) in enumerate(lines):
        labels[row], cols, vals = _parse_line(name, number, text, width)
        columns.extend(cols)
        values.extend(vals)
        indptr[row + 1] = len(columns)
    matrix = spsp.csr_matrix((np.asarray(values, dtype=np.float32),
                              np.asarray(columns, dtype=np.int64), indptr),
                             shape=(len(lines), width))
    matrix.sum_duplicates()     # sorts each row's indices (MXNet expects them sorted)
    return labels, matrix
