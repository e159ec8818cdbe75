"""Record what real MXNet 1.9.1 computes for Deconvolution, UpSampling, topk, sort and
argsort: outputs, input gradients and inferred shapes, for a handful of configurations.

Run with the MXNet environment (not part of the test suite):

    /work/mxvenv/bin/python tests/data/gen/gen_ops_deconv_sort_reference.py

MXNet's native (non-oneDNN) kernels run every case but the 3-D deconvolution, which
only oneDNN implements; that one runs in a child process with oneDNN on (oneDNN
refuses dilated deconvolutions, the native kernel handles them). Writes
tests/data/ops_deconv_sort_reference.npz. Each case ``name`` stores
``name/meta`` (JSON: op, params, argument names, inferred shapes, output dtypes), ``name/arg/<arg>``, ``name/out/<i>``, ``name/ograd/<i>`` and
``name/grad/<arg>``. Inputs are passed positionally in ``args`` order.
"""
import json
import os
import pathlib
import subprocess
import sys
import tempfile

ONEDNN_CASES = ('deconv_3d',)
if '--onednn' not in sys.argv:
    os.environ['MXNET_MKLDNN_ENABLED'] = '0'    # read once, when mxnet loads

import mxnet as mx  # noqa: E402
import numpy as np  # noqa: E402

OUT = pathlib.Path(__file__).resolve().parent.parent / 'ops_deconv_sort_reference.npz'
rng = np.random.RandomState(1234)


def deconv_case(shape, kernel, num_filter, **params):
    groups = params.get('num_group', 1)
    args = {'data': rng.randn(*shape),
            'weight': rng.randn(shape[1], num_filter // groups, *kernel)}
    if not params.get('no_bias', True):
        args['bias'] = rng.randn(num_filter)
    return 'Deconvolution', dict(kernel=kernel, num_filter=num_filter, **params), args


def ties(shape, levels=3):
    """Few distinct values, so that the order of equal values matters."""
    return rng.randint(0, levels, size=shape).astype(np.float64)


CASES = {
    'deconv_2d_basic': deconv_case((2, 3, 4, 5), (3, 3), 4),
    'deconv_2d_stride_pad_adj_bias': deconv_case((2, 4, 3, 4), (4, 3), 6, stride=(2, 3),
                                                 pad=(1, 1), adj=(1, 2), no_bias=False),
    'deconv_2d_group_dilate': deconv_case((1, 4, 5, 4), (3, 2), 6, num_group=2,
                                          dilate=(2, 1), stride=(1, 2), pad=(2, 0)),
    'deconv_2d_target_shape': deconv_case((2, 2, 4, 4), (3, 3), 3, stride=(2, 2),
                                          target_shape=(8, 7), pad=(5, 5), no_bias=False),
    'deconv_1d': deconv_case((3, 2, 6), (3,), 4, stride=(2,), pad=(1,), adj=(1,),
                             no_bias=False),
    # dilation with stride 1 only: MXNet's native col2im skips kernel taps when both
    # exceed 1 on one axis (and oneDNN refuses dilated deconvolutions)
    'deconv_1d_target_dilate': deconv_case((2, 3, 5), (3,), 2, dilate=(2,),
                                           target_shape=(7,)),
    'deconv_3d': deconv_case((2, 2, 3, 2, 3), (2, 3, 2), 4, stride=(2, 1, 2), pad=(0, 1, 1),
                             num_group=2, no_bias=False),
    'upsampling_nearest': ('UpSampling', dict(scale=2, sample_type='nearest'),
                           {'arg0': rng.randn(2, 3, 3, 4)}),
    'upsampling_nearest_concat': ('UpSampling', dict(scale=3, sample_type='nearest'),
                                  {'arg0': rng.randn(1, 2, 2, 3), 'arg1': rng.randn(1, 3, 6, 9),
                                   'arg2': rng.randn(1, 1, 2, 3)}),
    'upsampling_nearest_sum': ('UpSampling', dict(scale=2, sample_type='nearest',
                                                  multi_input_mode='sum'),
                               {'arg0': rng.randn(2, 2, 2, 4), 'arg1': rng.randn(2, 2, 4, 8),
                                'arg2': rng.randn(2, 2, 1, 2)}),
    'upsampling_bilinear_2': ('UpSampling', dict(scale=2, sample_type='bilinear', num_filter=3),
                              {'data': rng.randn(2, 3, 3, 4), 'weight': rng.randn(3, 1, 4, 4)}),
    'upsampling_bilinear_3': ('UpSampling', dict(scale=3, sample_type='bilinear', num_filter=2),
                              {'data': rng.randn(1, 2, 2, 3), 'weight': rng.randn(2, 1, 5, 5)}),
    'topk_indices_default': ('topk', {}, {'data': ties((3, 7))}),
    'topk_value_k3_axis0': ('topk', dict(k=3, ret_typ='value', axis=0), {'data': ties((9, 4))}),
    'topk_both_partial': ('topk', dict(k=3, ret_typ='both', dtype='int32'),
                          {'data': ties((4, 40), 4)}),
    'topk_both_full_ascend': ('topk', dict(k=20, ret_typ='both', is_ascend=True),
                              {'data': ties((3, 50), 5)}),
    'topk_mask_axis1': ('topk', dict(k=2, ret_typ='mask', axis=1), {'data': ties((2, 6, 3))}),
    'topk_value_axis_none': ('topk', dict(k=5, ret_typ='value', axis=None),
                             {'data': ties((3, 4))}),
    'topk_value_k0': ('topk', dict(k=0, ret_typ='value', is_ascend=True),
                      {'data': ties((2, 3, 30), 6)}),
    # MXNet's sort gradient copies the axis attribute: without one given it fails to parse
    'sort_last_axis': ('sort', dict(axis=-1), {'data': ties((3, 5))}),
    'sort_descend_axis0': ('sort', dict(axis=0, is_ascend=False), {'data': ties((33, 3), 5)}),
    'sort_axis_none': ('sort', dict(axis=None), {'data': ties((4, 5))}),
    'argsort_ties_long': ('argsort', {}, {'data': ties((5, 300), 7)}),
    'argsort_descend_int64': ('argsort', dict(is_ascend=False, dtype='int64', axis=1),
                              {'data': ties((2, 70, 2), 3)}),
    'argsort_axis_none': ('argsort', dict(axis=None), {'data': ties((3, 6))}),
}


def record(name, op, params, args, arrays):
    names = list(args)
    variables = [mx.sym.Variable(n) for n in names]
    sym = getattr(mx.sym, op)(*variables, name='op', **params)
    arg_shapes, out_shapes, _ = sym.infer_shape(**{n: a.shape for n, a in args.items()})
    nd_args = {n: mx.nd.array(a, dtype=np.float32) for n, a in args.items()}
    grads = {n: mx.nd.zeros(a.shape) for n, a in args.items()}
    ex = sym.bind(mx.cpu(), args=nd_args, args_grad=grads, grad_req='write')
    outs = ex.forward(is_train=True)
    ograds = [mx.nd.array(rng.randn(*o.shape)) for o in outs]
    ex.backward(ograds)
    meta = dict(op=op, params={k: v for k, v in params.items()}, args=names,
                arg_shapes=[list(s) for s in arg_shapes],
                out_shapes=[list(s) for s in out_shapes],
                out_dtypes=[np.dtype(o.dtype).name for o in outs])
    arrays[name + '/meta'] = np.array(json.dumps(meta))
    for n in names:
        arrays['%s/arg/%s' % (name, n)] = nd_args[n].asnumpy()
        arrays['%s/grad/%s' % (name, n)] = ex.grad_dict[n].asnumpy()
    for i, (o, g) in enumerate(zip(outs, ograds)):
        arrays['%s/out/%d' % (name, i)] = o.asnumpy()
        arrays['%s/ograd/%d' % (name, i)] = g.asnumpy()


def main():
    arrays = {}
    if '--onednn' in sys.argv:
        for name in ONEDNN_CASES:
            record(name, *CASES[name], arrays)
        np.savez(sys.argv[-1], **arrays)
        return
    for name, (op, params, args) in CASES.items():
        if name not in ONEDNN_CASES:
            record(name, op, params, args, arrays)
    with tempfile.TemporaryDirectory() as tmp:
        part = os.path.join(tmp, 'onednn.npz')
        env = {k: v for k, v in os.environ.items() if k != 'MXNET_MKLDNN_ENABLED'}
        subprocess.run([sys.executable, __file__, '--onednn', part], check=True, env=env)
        with np.load(part) as extra:
            arrays.update({k: extra[k] for k in extra.files})
    np.savez_compressed(OUT, **arrays)
    print('wrote %s (%d cases, %d bytes)' % (OUT, len(CASES), OUT.stat().st_size))


if __name__ == '__main__':
    main()
