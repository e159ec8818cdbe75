"""SequenceMask, SequenceLast and SequenceReverse against per-sequence numpy loops, finite
differences and MXNet 1.9.1's recorded results (tests/data/ops_seq_norm_reference.npz)."""
import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.test_utils import assert_almost_equal, check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'SequenceMask', 'SequenceLast', 'SequenceReverse'}

REFERENCE = 'ops_seq_norm_reference.npz'


# ---- MXNet's recorded results ------------------------------------------------------------------
@pytest.mark.parametrize('name', case_names(REFERENCE, TESTED_OPS))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-6)


# ---- independent numpy references: one sequence at a time ----------------------------------------
def _batch_major(x, axis):
    """(batch, max_len, ...) copy of ``x`` whose sequence axis is ``axis``."""
    return np.swapaxes(x, 0, 1) if axis == 0 else x


def _from_batch_major(y, axis):
    return np.swapaxes(y, 0, 1) if axis == 0 else y


def ref_mask(x, lengths, value, axis):
    seqs = _batch_major(x, axis).copy()
    for b, n in enumerate(lengths):
        seqs[b, int(n):] = value
    return _from_batch_major(seqs, axis)


def ref_last(x, lengths, axis):
    seqs = _batch_major(x, axis)
    return np.stack([seqs[b, int(n) - 1] for b, n in enumerate(lengths)])


def ref_reverse(x, lengths):
    seqs = _batch_major(x, 0).copy()
    for b, n in enumerate(lengths):
        n = int(n)
        seqs[b, :n] = seqs[b, :n][::-1]
    return _from_batch_major(seqs, 0)


def _bind(sym, args, dtype, grad_req='write'):
    arrays = {k: mx.nd.array(v, dtype=v.dtype if k == 'len' else dtype)
              for k, v in args.items()}
    grads = {k: mx.nd.zeros(v.shape, dtype=v.dtype) for k, v in arrays.items()}
    return sym.bind(mx.cpu(), args=arrays, args_grad=grads, grad_req=grad_req)


def _symbol(op, use_len, **params):
    data = mx.sym.Variable('data')
    if use_len:
        return getattr(mx.sym, op)(data, mx.sym.Variable('len'), use_sequence_length=True,
                                   name='seq', **params)
    return getattr(mx.sym, op)(data, name='seq', **params)


SHAPES = [(5, 3), (4, 3, 2), (6, 2, 3, 2)]


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('axis', [0, 1])
def test_sequence_mask(shape, axis, dtype):
    x = np.random.randn(*shape).astype(dtype)
    max_len, batch = shape[axis], shape[1 - axis]
    lengths = np.random.randint(0, max_len + 1, size=batch).astype(np.float32)
    lengths[0] = max_len + 2        # longer than the data: nothing masked
    ex = _bind(_symbol('SequenceMask', True, value=-3.0, axis=axis),
               {'data': x, 'len': lengths}, dtype)
    out = ex.forward(is_train=True)[0]
    assert out.dtype == dtype
    assert np.array_equal(out.asnumpy(), ref_mask(x, lengths, -3.0, axis))
    dy = np.random.randn(*shape).astype(dtype)
    ex.backward(mx.nd.array(dy, dtype=dtype))
    assert np.array_equal(ex.grad_dict['data'].asnumpy(), ref_mask(dy, lengths, 0, axis))
    # the lengths get no gradient
    assert not ex.grad_dict['len'].asnumpy().any()


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', SHAPES)
@pytest.mark.parametrize('axis', [0, 1])
def test_sequence_last(shape, axis, dtype):
    x = np.random.randn(*shape).astype(dtype)
    max_len, batch = shape[axis], shape[1 - axis]
    lengths = np.random.randint(1, max_len + 1, size=batch).astype(np.int32)
    ex = _bind(_symbol('SequenceLast', True, axis=axis), {'data': x, 'len': lengths}, dtype)
    out = ex.forward(is_train=True)[0]
    expected = ref_last(x, lengths, axis)
    assert out.shape == expected.shape == shape[:axis] + shape[axis + 1:]
    assert np.array_equal(out.asnumpy(), expected)
    dy = np.random.randn(*expected.shape).astype(dtype)
    ex.backward(mx.nd.array(dy, dtype=dtype))
    grad = np.zeros_like(_batch_major(x, axis))
    for b, n in enumerate(lengths):
        grad[b, n - 1] = dy[b]
    assert np.array_equal(ex.grad_dict['data'].asnumpy(), _from_batch_major(grad, axis))


@pytest.mark.parametrize('dtype', [np.float32, np.float64])
@pytest.mark.parametrize('shape', SHAPES)
def test_sequence_reverse(shape, dtype):
    x = np.random.randn(*shape).astype(dtype)
    lengths = np.random.randint(0, shape[0] + 1, size=shape[1]).astype(np.float64)
    ex = _bind(_symbol('SequenceReverse', True), {'data': x, 'len': lengths}, dtype)
    assert np.array_equal(ex.forward(is_train=True)[0].asnumpy(), ref_reverse(x, lengths))
    dy = np.random.randn(*shape).astype(dtype)
    ex.backward(mx.nd.array(dy, dtype=dtype))
    assert np.array_equal(ex.grad_dict['data'].asnumpy(), ref_reverse(dy, lengths))


@pytest.mark.parametrize('axis', [0, 1])
def test_without_lengths_every_sequence_is_full(axis):
    x = np.random.randn(4, 3, 2)
    full = [x.shape[axis]] * x.shape[1 - axis]
    assert np.array_equal(mx.nd.SequenceMask(mx.nd.array(x), axis=axis, value=9).asnumpy(),
                          x.astype(np.float32))
    assert np.array_equal(mx.nd.SequenceLast(mx.nd.array(x), axis=axis).asnumpy(),
                          ref_last(x, full, axis).astype(np.float32))
    if axis == 0:
        assert np.array_equal(mx.nd.SequenceReverse(mx.nd.array(x)).asnumpy(),
                              x[::-1].astype(np.float32))
    # and the gradients are the head gradient put back where it came from
    for op in ('SequenceMask', 'SequenceLast') + (('SequenceReverse',) if axis == 0 else ()):
        sym = _symbol(op, False, **({} if op == 'SequenceReverse' else {'axis': axis}))
        ex = _bind(sym, {'data': x}, np.float64)
        out = ex.forward(is_train=True)[0]
        dy = np.random.randn(*out.shape)
        ex.backward(mx.nd.array(dy, dtype=np.float64))
        if op == 'SequenceMask':
            expected = dy
        elif op == 'SequenceReverse':
            expected = dy[::-1]
        else:
            expected = np.zeros_like(_batch_major(x, axis))
            expected[:, -1] = dy
            expected = _from_batch_major(expected, axis)
        assert np.array_equal(ex.grad_dict['data'].asnumpy(), expected)


def test_lengths_are_truncated_like_a_c_cast():
    x = np.arange(12, dtype=np.float32).reshape(4, 3)
    lengths = mx.nd.array([2.7, 1.2, 4.0])
    masked = mx.nd.SequenceMask(mx.nd.array(x), lengths, use_sequence_length=True).asnumpy()
    assert np.array_equal(masked, ref_mask(x, [2, 1, 4], 0, 0))
    last = mx.nd.SequenceLast(mx.nd.array(x), lengths, use_sequence_length=True).asnumpy()
    assert np.array_equal(last, [x[1, 0], x[0, 1], x[3, 2]])
    rev = mx.nd.SequenceReverse(mx.nd.array(x), lengths, use_sequence_length=True).asnumpy()
    assert np.array_equal(rev, ref_reverse(x, [2, 1, 4]))


@pytest.mark.parametrize('op,params', [('SequenceMask', dict(axis=1, value=2.0)),
                                       ('SequenceLast', dict(axis=1)),
                                       ('SequenceLast', dict(axis=0)),
                                       ('SequenceReverse', {})])
def test_numeric_gradient(op, params):
    shape = (4, 3, 2)
    max_len, batch = shape[params.get('axis', 0)], shape[1 - params.get('axis', 0)]
    # finite differences nudge the lengths too: keep them away from integers
    lengths = np.random.randint(1, max_len + 1, size=batch) + 0.5
    sym = _symbol(op, True, **params)
    check_numeric_gradient(sym, {'data': np.random.randn(*shape), 'len': lengths},
                           grad_nodes=['data'], numeric_eps=1e-6, rtol=1e-6, atol=1e-9,
                           dtype=np.float64)


@pytest.mark.parametrize('op', ['SequenceMask', 'SequenceLast', 'SequenceReverse'])
def test_backward_add_accumulates(op):
    x = np.random.randn(4, 3, 2)
    lengths = np.array([1, 4, 2], np.float64)
    grads = {}
    for req in ('write', 'add'):
        args = {'data': mx.nd.array(x, dtype=np.float64),
                'len': mx.nd.array(lengths, dtype=np.float64)}
        ex = _symbol(op, True).bind(mx.cpu(), args=args,
                                    args_grad={'data': mx.nd.ones(x.shape, dtype=np.float64)},
                                    grad_req={'data': req, 'len': 'null'})
        out = ex.forward(is_train=True)[0]
        ex.backward(mx.nd.array(np.linspace(-1, 1, out.size).reshape(out.shape),
                                dtype=np.float64))
        grads[req] = ex.grad_dict['data'].asnumpy()
    assert_almost_equal(grads['add'], grads['write'] + 1, rtol=1e-12, atol=0)


def test_names_shapes_and_types():
    data = mx.sym.Variable('data')
    assert mx.sym.SequenceMask(data, name='m').list_arguments() == ['data']
    for op in ('SequenceMask', 'SequenceLast', 'SequenceReverse'):
        sym = getattr(mx.sym, op)(data, use_sequence_length=True, name='s')
        assert sym.list_arguments() == ['data', 's_sequence_length']
        assert sym.list_outputs() == ['s_output']
    sym = mx.sym.SequenceMask(data, use_sequence_length=True, axis=1, name='s')
    assert sym.infer_shape(data=(2, 5, 3))[0] == [(2, 5, 3), (2,)]
    last = mx.sym.SequenceLast(data, use_sequence_length=True, name='s')
    args, outs, _ = last.infer_shape(data=(5, 2, 3, 4))
    assert args == [(5, 2, 3, 4), (2,)] and outs == [(2, 3, 4)]
    assert mx.sym.SequenceLast(data, axis=1).infer_shape(data=(5, 2, 3))[1] == [(5, 3)]
    # lengths keep their own dtype; unknown ones take data's, as in MXNet
    arg_types, out_types, _ = sym.infer_type(data=np.float64, s_sequence_length=np.int32)
    assert arg_types == [np.float64, np.int32] and out_types == [np.float64]
    assert sym.infer_type(data=np.float16)[0] == [np.float16, np.float16]
    # MXNet's numpy-extension alias
    x = np.random.randn(3, 2)
    alias = mx.nd._npx_sequence_mask(mx.nd.array(x), mx.nd.array([1, 2]),
                                     use_sequence_length=True)
    assert np.array_equal(alias.asnumpy(), ref_mask(x, [1, 2], 0, 0).astype(np.float32))


def test_int_data_and_float16():
    x = np.arange(12, dtype=np.int32).reshape(4, 3)
    out = mx.nd.SequenceMask(mx.nd.array(x, dtype=np.int32), mx.nd.array([1, 2, 3]),
                             use_sequence_length=True, value=-1)
    assert out.dtype == np.int32
    assert np.array_equal(out.asnumpy(), ref_mask(x, [1, 2, 3], -1, 0))
    h = np.random.randn(3, 2, 2).astype(np.float16)
    out = mx.nd.SequenceReverse(mx.nd.array(h, dtype=np.float16), mx.nd.array([2, 3]),
                                use_sequence_length=True)
    assert out.dtype == np.float16
    assert np.array_equal(out.asnumpy(), ref_reverse(h, [2, 3]))


def test_errors():
    data = mx.sym.Variable('data')
    with pytest.raises(MXNetError, match='axis'):
        mx.sym.SequenceMask(data, axis=2)
    with pytest.raises(MXNetError, match='axis'):
        mx.sym.SequenceReverse(data, axis=1)
    with pytest.raises(MXNetError, match='rank 2 or greater'):
        mx.sym.SequenceLast(data).infer_shape(data=(4,))
    with pytest.raises(MXNetError, match='sequence_length'):
        mx.sym.SequenceMask(data, use_sequence_length=True, name='s').infer_shape(
            data=(4, 3, 2), s_sequence_length=(4,))
    x = mx.nd.ones((4, 3))
    with pytest.raises(MXNetError, match=r'\[1, 4\]'):
        mx.nd.SequenceLast(x, mx.nd.array([0, 1, 2]), use_sequence_length=True)
    with pytest.raises(MXNetError, match=r'\[1, 4\]'):
        mx.nd.SequenceLast(x, mx.nd.array([1, 5, 2]), use_sequence_length=True)
    with pytest.raises(MXNetError, match=r'\[0, 4\]'):
        mx.nd.SequenceReverse(x, mx.nd.array([1, 5, 2]), use_sequence_length=True)
    with pytest.raises(MXNetError, match='use_sequence_lenght'):
        mx.sym.SequenceMask(data, use_sequence_lenght=True)
