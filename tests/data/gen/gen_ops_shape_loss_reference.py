"""Record real MXNet 1.9.1 results for the loss, shape, slicing, indexing, linalg and
init operator tests (tests/ops/test_loss.py, test_shape.py, ...).

Run with the MXNet virtual environment (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_ops_shape_loss_reference.py

Writes
  tests/data/ops_shape_loss_reference.json   one entry per case: operator, parameters,
                                             input names, and the error MXNet raised if any
  tests/data/ops_shape_loss_reference.npz    '<case>/in/<name>', '<case>/out<i>' and
                                             '<case>/grad/<name>' arrays

Each case binds ``mx.sym.<op>`` to the inputs, runs forward (training mode) and, when
asked, backward with a fixed head gradient ('<case>/head<i>'), grad_req 'write'.
"""
import json
import os

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT_JSON = os.path.join(HERE, '..', 'ops_shape_loss_reference.json')
OUT_NPZ = os.path.join(HERE, '..', 'ops_shape_loss_reference.npz')

CASES = {}
ARRAYS = {}
RNG = np.random.RandomState(1234)


def randn(*shape):
    return RNG.normal(size=shape)


def add(case, op, inputs, params=None, backward=True, grad_of=None, dtype='float32'):
    """Run one case and store its inputs, outputs and gradients."""
    params = params or {}
    names = list(inputs)
    variables = [mx.sym.Variable(n) for n in names]
    entry = {'op': op, 'params': {k: str(v) for k, v in params.items()},
             'inputs': names, 'dtype': dtype}
    try:
        sym = getattr(mx.sym, op)(*variables, **params)
        args = {n: mx.nd.array(v, dtype=dtype) for n, v in inputs.items()}
        grad_of = names if grad_of is None else grad_of
        grads = {n: mx.nd.zeros(v.shape, dtype=dtype) for n, v in inputs.items() if n in grad_of}
        req = {n: ('write' if n in grad_of and backward else 'null') for n in names}
        ex = sym.bind(mx.cpu(), args=args, args_grad=grads, grad_req=req)
        outs = ex.forward(is_train=True)
        for i, o in enumerate(outs):
            ARRAYS['%s/out%d' % (case, i)] = o.asnumpy()
        if backward:
            heads = [RNG.normal(size=o.shape).astype(dtype) for o in outs]
            for i, h in enumerate(heads):
                ARRAYS['%s/head%d' % (case, i)] = h
            ex.backward([mx.nd.array(h, dtype=dtype) for h in heads])
            for n in grad_of:
                ARRAYS['%s/grad/%s' % (case, n)] = ex.grad_dict[n].asnumpy()
        for n, v in inputs.items():
            ARRAYS['%s/in/%s' % (case, n)] = np.asarray(v, dtype=dtype)
        entry['num_outputs'] = len(outs)
        entry['grad_of'] = list(grad_of) if backward else []
    except Exception as err:      # record what MXNet refuses
        lines = [l for l in str(err).split('\n') if l.strip()]
        entry['error'] = lines[-1] if lines else type(err).__name__
    CASES[case] = entry


def loss_cases():
    for dtype in ('float32', 'float64'):
        t = '_' + dtype
        x = randn(6, 5)
        lab = np.array([0, 4, 2, -1, 3, 7.0])     # -1 ignored / out of range, 7 out of range
        add('softmax_default' + t, 'SoftmaxOutput', {'data': x, 'label': lab}, {},
            grad_of=['data'], dtype=dtype)
        for norm in ('null', 'batch', 'valid'):
            add('softmax_ignore_%s%s' % (norm, t), 'SoftmaxOutput',
                {'data': x, 'label': lab},
                {'use_ignore': True, 'ignore_label': -1, 'normalization': norm,
                 'grad_scale': 2.5}, grad_of=['data'], dtype=dtype)
            add('softmax_noignore_%s%s' % (norm, t), 'SoftmaxOutput',
                {'data': x, 'label': np.array([0, 4, 2, 1, 3, 1.0])},
                {'normalization': norm, 'ignore_label': 1}, grad_of=['data'], dtype=dtype)
        add('softmax_smooth' + t, 'SoftmaxOutput', {'data': x, 'label': lab},
            {'smooth_alpha': 0.2, 'use_ignore': True, 'normalization': 'valid'},
            grad_of=['data'], dtype=dtype)
        add('softmax_outgrad' + t, 'SoftmaxOutput', {'data': x, 'label': lab},
            {'out_grad': True, 'grad_scale': 0.5}, grad_of=['data'], dtype=dtype)
        add('softmax_prob' + t, 'SoftmaxOutput',
            {'data': x, 'label': RNG.dirichlet(np.ones(5), size=6)},
            {'grad_scale': 3.0, 'normalization': 'batch'}, grad_of=['data'], dtype=dtype)
        x3 = randn(2, 4, 3)
        lab3 = np.array([[0, 3, 1], [2, 2, -1.0]])
        for norm in ('null', 'batch', 'valid'):
            add('softmax_multi_%s%s' % (norm, t), 'SoftmaxOutput', {'data': x3, 'label': lab3},
                {'multi_output': True, 'use_ignore': True, 'normalization': norm},
                grad_of=['data'], dtype=dtype)
        add('softmax_multi_label3' + t, 'SoftmaxOutput',
            {'data': x3, 'label': lab3.reshape(2, 1, 3)}, {'multi_output': True},
            grad_of=['data'], dtype=dtype)
        add('softmax_multi_4d' + t, 'SoftmaxOutput',
            {'data': randn(2, 3, 2, 2), 'label': np.array([[[0, 1], [2, 0]], [[1, 1], [2, 2.]]])},
            {'multi_output': True, 'normalization': 'batch'}, grad_of=['data'], dtype=dtype)
        add('softmax_preserve' + t, 'SoftmaxOutput',
            {'data': x3, 'label': np.array([[0, 1, 2, 2], [1, 0, -1, 2.0]])},
            {'preserve_shape': True, 'normalization': 'valid', 'use_ignore': True},
            grad_of=['data'], dtype=dtype)
        add('softmax_3d_flat' + t, 'SoftmaxOutput',
            {'data': x3, 'label': np.array([[5, 1, 2, 0], [11, 0, 1, 2.0]])},
            {'normalization': 'batch'}, grad_of=['data'], dtype=dtype)
        y = randn(4, 3)
        for op in ('LinearRegressionOutput', 'MAERegressionOutput', 'LogisticRegressionOutput'):
            add('%s%s' % (op, t), op, {'data': y, 'label': RNG.uniform(size=(4, 3))},
                {'grad_scale': 1.5}, grad_of=['data'], dtype=dtype)
            add('%s_1d%s' % (op, t), op, {'data': randn(5, 1), 'label': RNG.uniform(size=5)},
                {}, grad_of=['data'], dtype=dtype)
        z = randn(3, 2, 4)
        for norm in ('null', 'batch', 'valid'):
            add('MakeLoss_%s%s' % (norm, t), 'MakeLoss', {'data': z},
                {'normalization': norm, 'grad_scale': 2.0, 'valid_thresh': 0.1}, dtype=dtype)
        add('MakeLoss_1d' + t, 'MakeLoss', {'data': randn(5)}, {'normalization': 'batch'},
            dtype=dtype)
        add('make_loss' + t, 'make_loss', {'data': z}, dtype=dtype)
        add('BlockGrad' + t, 'BlockGrad', {'data': z}, dtype=dtype)
        add('softmax_cross_entropy' + t, 'softmax_cross_entropy',
            {'data': randn(4, 5), 'label': np.array([1, 0, 4, 2.0])}, grad_of=['data'],
            dtype=dtype)


def shape_cases():
    x = randn(2, 3, 4)
    add('slice_step', 'slice', {'data': x}, {'begin': (None, 2, -1), 'end': (None, 0, None),
                                             'step': (1, -1, -2)})
    add('slice_neg', 'slice', {'data': x}, {'begin': (-1, -2), 'end': (None, None)})
    add('slice_clamp', 'slice', {'data': x}, {'begin': (0, -7, 1), 'end': (5, 2, 100),
                                              'step': (2, 1, 2)})
    add('slice_axis_neg', 'slice_axis', {'data': x}, {'axis': -1, 'begin': -3, 'end': -1})
    add('slice_like_axes', 'slice_like', {'data': x, 'shape_like': randn(1, 2, 3)},
        {'axes': (0, -1)}, grad_of=['data'])
    add('tile', 'tile', {'data': randn(2, 3)}, {'reps': (2, 1, 3)})
    add('repeat_axis', 'repeat', {'data': randn(2, 3)}, {'repeats': 3, 'axis': -1})
    add('repeat_flat', 'repeat', {'data': randn(2, 3)}, {'repeats': 2})
    add('flip', 'flip', {'data': x}, {'axis': (0, 2)})
    add('concat_neg', 'Concat', {'a': randn(2, 3), 'b': randn(2, 1), 'c': randn(2, 2)},
        {'dim': -1, 'num_args': 3})
    add('stack', 'stack', {'a': randn(2, 3), 'b': randn(2, 3)}, {'axis': 1, 'num_args': 2})
    add('split_squeeze', 'SliceChannel', {'data': x}, {'num_outputs': 3, 'axis': 1,
                                                        'squeeze_axis': True})
    add('pad_constant', 'Pad', {'data': randn(1, 2, 3, 3)},
        {'mode': 'constant', 'pad_width': (0, 0, 0, 0, 1, 2, 2, 1), 'constant_value': 1.5})
    add('pad_edge', 'Pad', {'data': randn(1, 2, 3, 3)},
        {'mode': 'edge', 'pad_width': (0, 0, 0, 0, 2, 1, 1, 2)})
    add('pad_reflect', 'Pad', {'data': randn(2, 1, 3, 4)},
        {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 2, 1, 1, 3)})
    add('pad_reflect5d', 'Pad', {'data': randn(1, 1, 3, 3, 3)},
        {'mode': 'reflect', 'pad_width': (0, 0, 0, 0, 1, 1, 2, 1, 1, 2)})
    add('depth_to_space', 'depth_to_space', {'data': randn(1, 8, 2, 3)}, {'block_size': 2})
    add('space_to_depth', 'space_to_depth', {'data': randn(1, 2, 4, 6)}, {'block_size': 2})
    add('transpose', 'transpose', {'data': x}, {'axes': (1, 2, 0)})
    add('swapaxes', 'SwapAxis', {'data': x}, {'dim1': 0, 'dim2': 2})
    idx = np.array([[0, 5], [-1, 1.7]])
    for mode in ('clip', 'wrap'):
        add('take_%s' % mode, 'take', {'a': randn(4, 3), 'indices': idx}, {'mode': mode},
            grad_of=['a'])
        add('take_axis1_%s' % mode, 'take', {'a': randn(2, 4, 3), 'indices': idx},
            {'mode': mode, 'axis': 1}, grad_of=['a'])
        add('pick_%s' % mode, 'pick', {'data': randn(3, 4), 'index': np.array([0, 5, -1.0])},
            {'mode': mode, 'axis': 1}, grad_of=['data'])
    add('pick_axis0_keep', 'pick', {'data': randn(3, 4), 'index': np.array([[0, 2, 1, 1.0]])},
        {'axis': 0, 'keepdims': True}, grad_of=['data'])
    add('one_hot', 'one_hot', {'indices': np.array([[1, 0], [5, -1.0]])},
        {'depth': 3, 'on_value': 2.5, 'off_value': -1}, backward=False)
    # MXNet's gather_nd backward does not wrap negative indices (it writes out of bounds),
    # so only the forward pass is recorded with a negative index
    add('gather_nd', 'gather_nd', {'data': randn(3, 4, 2), 'indices': np.array([[0, 2, 2],
                                                                                [1, 3, 0.]])},
        grad_of=['data'])
    add('gather_nd_negative', 'gather_nd', {'data': randn(3, 4, 2),
                                            'indices': np.array([[0, -1], [-4, 3.]])},
        backward=False)
    add('scatter_nd', 'scatter_nd', {'data': randn(3, 2), 'indices': np.array([[0, 2, 1.]])},
        {'shape': (4, 2)}, grad_of=['data'])
    add('dot_nd', 'dot', {'lhs': randn(2, 3, 4), 'rhs': randn(4, 5)})
    add('dot_ta', 'dot', {'lhs': randn(3, 2, 4), 'rhs': randn(3, 5)}, {'transpose_a': True})
    add('dot_tb', 'dot', {'lhs': randn(3, 4), 'rhs': randn(2, 5, 4)}, {'transpose_b': True})
    add('dot_tatb', 'dot', {'lhs': randn(4, 3), 'rhs': randn(2, 4)},
        {'transpose_a': True, 'transpose_b': True})
    add('dot_vec', 'dot', {'lhs': randn(4), 'rhs': randn(4)})
    add('dot_vec_mat', 'dot', {'lhs': randn(4), 'rhs': randn(4, 3)})
    add('batch_dot', 'batch_dot', {'lhs': randn(2, 3, 4), 'rhs': randn(2, 5, 4)},
        {'transpose_b': True})
    add('batch_dot_ta', 'batch_dot', {'lhs': randn(2, 2, 4, 3), 'rhs': randn(2, 2, 4, 5)},
        {'transpose_a': True})
    add('gemm2_axis', 'linalg_gemm2', {'A': randn(2, 5, 4, 3), 'B': randn(2, 5, 4, 6)},
        {'axis': 1, 'transpose_a': True, 'alpha': 1.5})
    add('reshape_like', 'reshape_like', {'lhs': randn(30, 12), 'rhs': randn(4, 2, 2, 3)},
        {'lhs_begin': -1, 'lhs_end': None, 'rhs_begin': 1, 'rhs_end': None}, grad_of=['lhs'])


def main():
    loss_cases()
    shape_cases()
    with open(OUT_JSON, 'w') as f:
        json.dump({'mxnet_version': mx.__version__, 'cases': CASES}, f, indent=1,
                  sort_keys=True)
    np.savez_compressed(OUT_NPZ, **ARRAYS)
    errors = {k: v['error'] for k, v in CASES.items() if 'error' in v}
    print('%d cases, %d arrays, errors: %s' % (len(CASES), len(ARRAYS), errors))


if __name__ == '__main__':
    main()
