"""Exports whose batch size varies (``dynamic=True``): the Loop-based linalg operators
(potrf, potri, trsm, inverse, gelqf, syevd, slogdet), CTCLoss, MultiBoxTarget, hawkesll and
bipartite_matching; one exported model runs on other batch sizes like symmod. Inputs
sharing the batch name a dimension alike, so it varies in all of them at once. A varying
matrix size is refused, naming the node."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from onnx_check import NEWEST, check_export, export
from onnx_export_cases_graphs import CTC_CASES, HAWKES_CASES, MATCHING_CASES, MULTIBOX_CASES

S = mx.sym
D = S.var('data')
RNG = np.random.RandomState(8)


def _spd(*batch, n=4):
    m = RNG.randn(*batch, n, n)
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(np.float32)


def _triangular(*shape):
    m = RNG.uniform(-1, 1, shape)
    diagonal = np.arange(shape[-1])
    m[..., diagonal, diagonal] = RNG.uniform(1, 2, shape[:-1])
    return m.astype(np.float32)


def _x(*shape):
    return RNG.uniform(-2, 2, shape).astype(np.float32)


CASES = [
    ('potrf', S.linalg.potrf(D), _spd(2), [_spd(5)]),
    ('potri_upper', S.linalg.potri(D, lower=False), _triangular(2, 4, 4),
     [_triangular(1, 4, 4)]),
    ('inverse_two_batch_axes', S.linalg.inverse(D), _spd(2, 3), [_spd(4, 3)]),
    ('gelqf', S.Group(list(S.linalg.gelqf(D))), _x(2, 3, 5), [_x(4, 3, 5)]),
    ('syevd', S.Group(list(S.linalg.syevd(D))), _x(2, 4, 4), [_x(3, 4, 4)]),
    ('slogdet', S.Group(list(S.linalg.slogdet(D))), _x(2, 3, 4, 4), [_x(5, 3, 4, 4)]),
    ('arange_like_batch_axis', S.contrib.arange_like(D, axis=0, start=1, step=0.5),
     _x(3, 4), [_x(5, 4)]),
    ('arange_like_whole_repeat', S.contrib.arange_like(D, repeat=2, step=-1.5), _x(2, 3),
     [_x(4, 3)]),
]


def test_trsm_batch_shared_by_both_inputs():
    a, b = _triangular(2, 4, 4), _x(2, 3, 4)
    check_export(S.linalg.trsm(D, S.var('rhs'), rightside=True), {'data': a, 'rhs': b},
                 dynamic=True, dynamic_input_shapes=[('batch', 4, 4), ('batch', 3, 4)],
                 dynamic_inputs=[{'data': _triangular(3, 4, 4), 'rhs': _x(3, 3, 4)}],
                 opsets=[12, NEWEST])


_BATCHED = CTC_CASES + [c for c in MULTIBOX_CASES if c[0].startswith('MultiBoxTarget')] \
    + HAWKES_CASES + [c for c in MATCHING_CASES if c[2]['data'].ndim == 3]
_FIXED = ('anchor', 'alpha', 'beta')        # the other inputs have the batch first


@pytest.mark.parametrize('index', range(len(_BATCHED)), ids=[c[0] for c in _BATCHED])
def test_batch_shared_by_the_inputs(index):
    case, sym, inputs, options = _BATCHED[index]
    shapes, bigger = [], {}
    for name in sym.list_inputs():
        value = inputs[name]
        axis = None if name in _FIXED else 1 if case.startswith('CTC') and name == 'data' \
            else 0
        if axis is None:
            shapes.append(value.shape)
            bigger[name] = value
            continue
        shapes.append(tuple('batch' if a == axis else s for a, s in enumerate(value.shape)))
        bigger[name] = np.concatenate([value, np.take(value, [0], axis=axis)], axis=axis)
    check_export(sym, inputs, dynamic=True, dynamic_input_shapes=shapes,
                 dynamic_inputs=[bigger], opsets=[12, NEWEST], **options)


@pytest.mark.parametrize('name,sym,data,others', CASES, ids=[c[0] for c in CASES])
def test_batch_size_varies(name, sym, data, others):
    check_export(sym, {'data': data}, dynamic=True,
                 dynamic_input_shapes=[(None,) + data.shape[1:]],
                 dynamic_inputs=[{'data': o} for o in others], opsets=[12, NEWEST])


def test_varying_matrix_size_is_refused(tmp_path):
    sym = S.Group(list(S.linalg.gelqf(D, name='lq')))
    with pytest.raises(MXNetError, match=r"node 'lq' \(operator _linalg_gelqf\).*matrix "
                                         r"dimensions that vary"):
        export(sym, {}, [(2, 3, 5)], dynamic=True, dynamic_input_shapes=[('b', 3, 'n')],
               onnx_file_path=str(tmp_path / 'q.onnx'))
