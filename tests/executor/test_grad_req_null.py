"""grad_req 'null' at the executor, for every registered operator.

For each operator and each of its inputs in turn, the graph is bound with that input's
grad_req 'null' and the others 'write': backward must run, leave the 'null' input's
gradient array untouched, give the other inputs the gradients an all-'write' binding
gives, and (operators honouring the request) not even write into the scratch the
executor hands it for the 'null' input.

An operator the default sample (one (2, 3) float64 array per argument, default
parameters) cannot build needs an entry in ``SAMPLES``.
"""
import numpy as np
import pytest

import symmod as mx
from symmod.ops import registry

SENTINEL = 7.25
SINK_BYTE = 0xAB


def _spd(n=3, batch=()):
    rng = np.random.RandomState(3)
    a = rng.uniform(-1, 1, batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _lower(n=3):
    return np.tril(np.random.RandomState(4).uniform(0.5, 1.5, (n, n))) + np.eye(n)


# op: (parameters, inputs); an input is a shape (uniform values in [0.5, 1.5)) or an array
SAMPLES = {
    'Activation': ({'act_type': 'tanh'}, [(2, 3)]),
    'BatchNorm': ({}, [(2, 3, 2), (3,), (3,)]),
    'BatchNorm_v1': ({}, [(2, 3, 2), (3,), (3,)]),
    'CTCLoss': ({}, [(4, 2, 3), np.array([[1., 2.], [2., 0.]])]),
    'Cast': ({'dtype': 'float64'}, [(2, 3)]),
    'Concat': ({'num_args': 2}, [(2, 3), (2, 2)]),
    'Convolution': ({'kernel': (2,), 'num_filter': 2}, [(1, 2, 4), (2, 2, 2), (2,)]),
    'Convolution_v1': ({'kernel': (2, 2), 'num_filter': 2},
                       [(1, 2, 3, 3), (2, 2, 2, 2), (2,)]),
    'Deconvolution': ({'kernel': (2,), 'num_filter': 2, 'no_bias': False},
                      [(1, 2, 3), (2, 2, 2), (2,)]),
    'Embedding': ({'input_dim': 4, 'output_dim': 3}, [np.array([0., 3., 1.]), (4, 3)]),
    '_contrib_SparseEmbedding': ({'input_dim': 4, 'output_dim': 3},
                                 [np.array([0., 3., 1.]), (4, 3)]),
    'FullyConnected': ({'num_hidden': 2}, [(2, 3), (2, 3), (2,)]),
    'GroupNorm': ({'num_groups': 1}, [(2, 3, 2), (1,), (1,)]),
    'InstanceNorm': ({}, [(2, 3, 2), (3,), (3,)]),
    'LRN': ({'nsize': 3}, [(1, 3, 2, 2)]),
    'LayerNorm': ({}, [(2, 3), (3,), (3,)]),
    'Pad': ({'mode': 'edge', 'pad_width': (0, 0, 0, 0, 1, 1, 1, 1)}, [(1, 1, 2, 2)]),
    'Pooling': ({'kernel': (2,)}, [(1, 2, 4)]),
    'Pooling_v1': ({'kernel': (2, 2)}, [(1, 2, 3, 3)]),
    'RNN': ({'state_size': 2, 'num_layers': 1, 'mode': 'rnn_tanh'},
            [(3, 2, 2), (12,), (1, 2, 2)]),
    'Reshape': ({'shape': (3, 2)}, [(2, 3)]),
    'SliceChannel': ({'num_outputs': 3}, [(2, 3)]),
    'UpSampling': ({'scale': 2, 'sample_type': 'nearest', 'num_args': 1}, [(1, 1, 2, 2)]),
    '_contrib_SyncBatchNorm': ({'key': 'null_req'}, [(2, 3, 2), (3,), (3,)]),
    '_image_adjust_lighting': ({'alpha': (0.1, 0.2, 0.3)}, [(2, 3, 3)]),
    '_image_crop': ({'x': 0, 'y': 0, 'width': 2, 'height': 1}, [(2, 3, 3)]),
    '_image_flip_left_right': ({}, [(2, 3, 3)]),
    '_image_flip_top_bottom': ({}, [(2, 3, 3)]),
    '_image_normalize': ({'mean': (0.1,), 'std': (2.0,)}, [(3, 2, 2)]),
    '_image_random_brightness': ({'min_factor': 0.5, 'max_factor': 1.5}, [(2, 3, 3)]),
    '_image_random_color_jitter': ({'brightness': 0.1, 'contrast': 0.1, 'saturation': 0.1,
                                    'hue': 0.1}, [(2, 3, 3)]),
    '_image_random_contrast': ({'min_factor': 0.5, 'max_factor': 1.5}, [(2, 3, 3)]),
    '_image_random_flip_left_right': ({}, [(2, 3, 3)]),
    '_image_random_flip_top_bottom': ({}, [(2, 3, 3)]),
    '_image_random_hue': ({'min_factor': 0.5, 'max_factor': 1.5}, [(2, 3, 3)]),
    '_image_random_lighting': ({}, [(2, 3, 3)]),
    '_image_random_saturation': ({'min_factor': 0.5, 'max_factor': 1.5}, [(2, 3, 3)]),
    '_image_resize': ({'size': (3, 2)}, [(2, 3, 3)]),
    '_image_to_tensor': ({}, [(2, 3, 3)]),
    '_linalg_det': ({}, [_spd()]),
    '_linalg_extractdiag': ({}, [(3, 3)]),
    '_linalg_extracttrian': ({}, [(3, 3)]),
    '_linalg_gemm': ({}, [(2, 3), (3, 2), (2, 2)]),
    '_linalg_gemm2': ({}, [(2, 3), (3, 2)]),
    '_linalg_inverse': ({}, [_spd()]),
    '_linalg_potrf': ({}, [_spd()]),
    '_linalg_potri': ({}, [_lower()]),
    '_linalg_slogdet': ({}, [_spd()]),
    '_linalg_sumlogdiag': ({}, [_spd()]),
    '_linalg_syevd': ({}, [_spd() + np.diag([0., 1., 2.])]),
    '_linalg_trmm': ({}, [_lower(), (3, 2)]),
    '_linalg_trsm': ({}, [_lower(), (3, 2)]),
    '_rnn_param_concat': ({'num_args': 2, 'dim': 0}, [(2, 3), (1, 3)]),
    'add_n': ({'num_args': 3}, [(2, 3), (2, 3), (2, 3)]),
    'batch_dot': ({}, [(2, 2, 3), (2, 3, 2)]),
    'batch_take': ({}, [(2, 3), np.array([2, 0], np.int32)]),
    'broadcast_to': ({'shape': (2, 3)}, [(1, 3)]),
    'clip': ({'a_min': 0.8, 'a_max': 1.2}, [(2, 3)]),
    'depth_to_space': ({'block_size': 2}, [(1, 4, 1, 2)]),
    'dot': ({}, [(2, 3), (3, 2)]),
    'expand_dims': ({'axis': 1}, [(2, 3)]),
    'one_hot': ({'depth': 3}, [np.array([0., 2.])]),
    'pick': ({'axis': 1}, [(2, 3), np.array([2., 0.])]),
    'repeat': ({'repeats': 2}, [(2, 3)]),
    'reverse': ({'axis': 1}, [(2, 3)]),
    'scatter_nd': ({'shape': (3, 2)}, [(2,), np.array([[0., 2.], [1., 0.]])]),
    'slice': ({'begin': (0, 1), 'end': (2, 3)}, [(2, 3)]),
    'slice_axis': ({'axis': 1, 'begin': 0, 'end': 2}, [(2, 3)]),
    'softmax_cross_entropy': ({}, [(2, 3), np.array([2., 0.])]),
    '_gluon_softmax_ce_loss': ({}, [(2, 3), np.array([2., 0.])]),
    'space_to_depth': ({'block_size': 2}, [(1, 1, 2, 4)]),
    'stack': ({'num_args': 2}, [(2, 3), (2, 3)]),
    'tile': ({'reps': (2, 1)}, [(2, 3)]),
    'gather_nd': ({}, [(2, 3), np.array([[1., 0.], [2., 1.]])]),
    'take': ({}, [(3, 2), np.array([2., 0.])]),
    'where': ({}, [np.array([[1., 0., 1.], [0., 0., 1.]]), (2, 3), (2, 3)]),
    'SequenceLast': ({'use_sequence_length': True}, [(3, 2, 2), np.array([1., 3.])]),
    'SequenceMask': ({'use_sequence_length': True}, [(3, 2, 2), np.array([1., 3.])]),
    'SequenceReverse': ({'use_sequence_length': True}, [(3, 2, 2), np.array([1., 3.])]),
    'SoftmaxOutput': ({}, [(2, 3), np.array([2., 0.])]),
    'Custom': ({'op_type': 'grad_req_null_scale'}, [(2, 3), (2, 3)]),
    'GridGenerator': ({'transform_type': 'affine', 'target_shape': (2, 2)}, [(1, 6)]),
    'BilinearSampler': ({}, [(1, 2, 3, 3), np.full((1, 2, 2, 2), 0.3)]),
    'SpatialTransformer': ({'target_shape': (2, 2), 'transform_type': 'affine',
                            'sampler_type': 'bilinear'},
                           [(1, 2, 3, 3), np.array([[0.9, 0.1, 0.1, 0.0, 0.8, 0.1]])]),
    'Crop': ({'num_args': 2}, [(1, 1, 3, 3), (1, 1, 2, 2)]),
    'ROIPooling': ({'pooled_size': (1, 1), 'spatial_scale': 1.0},
                   [(1, 1, 3, 3), np.array([[0., 0., 0., 2., 2.]])]),
    'Correlation': ({}, [(1, 1, 3, 3), (1, 1, 3, 3)]),
    'SVMOutput': ({}, [(2, 3), np.array([2., 0.])]),
    'IdentityAttachKLSparseReg': ({}, [(2, 3)]),
    '_contrib_box_nms': ({}, [(2, 6)]),
    '_contrib_box_iou': ({}, [(2, 4), (3, 4)]),
    '_contrib_bipartite_matching': ({'threshold': 0.1}, [(2, 3)]),
    '_contrib_box_encode': ({}, [np.array([[1., 0.]]), np.array([[0., 1.]]), (1, 2, 4),
                                 (1, 2, 4), (4,), (4,)]),
    '_contrib_box_decode': ({}, [(1, 2, 4), (1, 2, 4)]),
    '_contrib_MultiBoxPrior': ({}, [(1, 1, 2, 2)]),
    '_contrib_MultiBoxTarget': ({}, [np.array([[[0.1, 0.1, 0.4, 0.4], [0.5, 0.5, 0.9, 0.9]]]),
                                     np.array([[[0., 0.1, 0.1, 0.5, 0.5]]]), (1, 2, 2)]),
    '_contrib_MultiBoxDetection': ({}, [(1, 2, 2), (1, 8),
                                        np.array([[[0.1, 0.1, 0.4, 0.4],
                                                   [0.5, 0.5, 0.9, 0.9]]])]),
    '_contrib_index_copy': ({}, [(3, 2), np.array([2., 0.]), (2, 2)]),
    'khatri_rao': ({'num_args': 2}, [(2, 3), (1, 3)]),
    '_histogram': ({'bin_cnt': 3, 'range': (0.5, 1.5)}, [(2, 3)]),
    '_split_v2': ({'indices': (0, 1), 'axis': 1}, [(2, 3)]),
    'moments': ({'axes': (1,)}, [(2, 3)]),
    '_ravel_multi_index': ({'shape': (3, 4)}, [np.array([[1., 2.], [0., 3.]])]),
    '_unravel_index': ({'shape': (3, 4)}, [np.array([1., 7.])]),
    '_slice_assign': ({'begin': (0, 1), 'end': (2, 3)}, [(2, 3), (2, 2)]),
    '_slice_assign_scalar': ({'scalar': 2.0, 'begin': (0,), 'end': (1,)}, [(2, 3)]),
    'fill_element_0index': ({}, [(2, 3), (2,), np.array([2., 0.])]),
    '_sample_negative_binomial': ({}, [(2, 3), np.full((2, 3), 0.5)]),
    '_sample_uniform': ({}, [np.full((2, 3), 0.5), np.full((2, 3), 1.5)]),
    '_random_pdf_negative_binomial': ({}, [(2, 3), (2, 3), np.full((2, 3), 0.5)]),
    '_random_pdf_generalized_negative_binomial': ({}, [np.full((2, 3), 2.0), (2, 3), (2, 3)]),
    '_random_pdf_poisson': ({}, [np.full((2, 3), 2.0), (2, 3)]),
    'amp_cast': ({'dtype': 'float32'}, [(2, 3)]),
    '_contrib_BilinearResize2D': ({'mode': 'like'}, [(1, 1, 2, 3), (1, 1, 3, 2)]),
    '_contrib_AdaptiveAvgPooling2D': ({}, [(1, 1, 2, 3)]),
    '_contrib_DeformableConvolution': ({'kernel': (1, 1), 'num_filter': 1},
                                       [(1, 1, 2, 2), np.full((1, 2, 2, 2), 0.3), (1, 1, 1, 1),
                                        (1,)]),
    '_contrib_ModulatedDeformableConvolution': ({'kernel': (1, 1), 'num_filter': 1},
                                                [(1, 1, 2, 2), np.full((1, 2, 2, 2), 0.3),
                                                 (1, 1, 2, 2), (1, 1, 1, 1), (1,)]),
    '_contrib_quantize': ({}, [np.full((2, 3), 0.5, np.float32), np.zeros(1, np.float32),
                               np.full(1, 2., np.float32)]),
    '_contrib_dequantize': ({}, [np.array([[1, 200]], np.uint8), np.zeros(1, np.float32),
                                 np.full(1, 2., np.float32)]),
    '_contrib_interleaved_matmul_selfatt_qk': ({'heads': 1}, [(2, 1, 6)]),
    '_contrib_interleaved_matmul_selfatt_valatt': ({'heads': 1}, [(2, 1, 6), (1, 2, 2)]),
    '_contrib_interleaved_matmul_encdec_qk': ({'heads': 1}, [(2, 1, 2), (3, 1, 4)]),
    '_contrib_interleaved_matmul_encdec_valatt': ({'heads': 1}, [(3, 1, 4), (1, 2, 3)]),
    '_contrib_ROIAlign': ({'pooled_size': (1, 1), 'spatial_scale': 1.0},
                          [(1, 1, 3, 3), np.array([[0., 0., 0., 2., 2.]])]),
    '_contrib_Proposal': ({'scales': (8,), 'ratios': (1,), 'rpn_post_nms_top_n': 3},
                          [(1, 2, 2, 2), (1, 4, 2, 2), np.array([[32., 32., 1.]])]),
    '_contrib_MultiProposal': ({'scales': (8,), 'ratios': (1,), 'rpn_post_nms_top_n': 3},
                               [(2, 2, 2, 2), (2, 4, 2, 2), np.array([[32., 32., 1.]] * 2)]),
    '_contrib_RROIAlign': ({'pooled_size': (1, 1), 'spatial_scale': 1.0},
                           [(1, 1, 3, 3), np.array([[0., 1., 1., 2., 2., 30.]])]),
    '_contrib_PSROIPooling': ({'spatial_scale': 1.0, 'output_dim': 1, 'pooled_size': 1},
                              [(1, 1, 3, 3), np.array([[0., 0., 0., 2., 2.]])]),
    'amp_multicast': ({'num_outputs': 2}, [(2, 3), (2, 3)]),
    'multi_all_finite': ({'num_arrays': 2}, [(2, 3), (2, 3)]),
    '_random_pdf_uniform': ({}, [(2, 3), np.full((2, 3), 0.2), np.full((2, 3), 2.0)]),
    'cast_storage': ({'stype': 'default'}, [(2, 3)]),
    'im2col': ({'kernel': (2, 2)}, [(1, 2, 3, 3)]),
    'col2im': ({'output_size': (3, 3), 'kernel': (2, 2)}, [(1, 8, 4)]),
    '_contrib_hawkesll': ({}, [(2, 2), (2,), (2,), (2, 2), (2, 3),
                               np.array([[0, 1, 1], [1, 0, 0]], np.int32),
                               np.array([3., 2.]), np.array([9., 9.])]),
}
# operators without array arguments have no gradient to test
NO_ARGUMENTS = {'_arange', '_eye', '_full', '_ones', '_zeros', '_zeros_without_dtype',
                '_linspace', '_random_uniform', '_random_normal', '_random_gamma',
                '_random_exponential', '_random_poisson', '_random_negative_binomial',
                '_random_generalized_negative_binomial', '_random_randint',
                '_sample_unique_zipfian'}
# inputs MXNet refuses a gradient for at bind (always 'null'); None: the operator has no
# gradient at all, only an all-'null' binding (forward) is possible
NEVER_GRAD = {'Embedding': {0}, '_contrib_SparseEmbedding': {0}, 'softmax_cross_entropy': {1},
              'argmax_channel': None, 'batch_take': None, '_contrib_allclose': None,
              'khatri_rao': None, 'all_finite': None, 'multi_all_finite': None,
              '_contrib_RROIAlign': None, '_contrib_hawkesll': {4, 5, 6, 7}}
# outputs sized by input values: they run imperatively only, no bound graph to test
DYNAMIC_SHAPE = {'_contrib_boolean_mask'}
# operators defined for csr inputs only (tests/ops/test_sparse_ops.py binds them)
SPARSE_ONLY = {'_contrib_getnnz'}


def _register_custom():
    if 'grad_req_null_scale' in mx.operator.get_all_registered_operators():
        return

    class Scale(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], in_data[0] * in_data[1])

        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            self.assign(in_grad[0], req[0], out_grad[0] * in_data[1])
            self.assign(in_grad[1], req[1], out_grad[0] * in_data[0])

    @mx.operator.register('grad_req_null_scale')
    class ScaleProp(mx.operator.CustomOpProp):  # pylint: disable=unused-variable
        def list_arguments(self):
            return ['a', 'b']

        def infer_shape(self, in_shape):
            return in_shape, [in_shape[0]], []

        def create_operator(self, ctx, shapes, dtypes):
            return Scale()


def _canonical_names():
    return sorted({registry.get(n).name for n in registry.list_operators()}
                  - NO_ARGUMENTS - DYNAMIC_SHAPE - SPARSE_ONLY)


def _sample(name):
    cls = registry.get(name)
    if name in SAMPLES:
        params, inputs = SAMPLES[name]
    else:
        params, inputs = {}, [(2, 3)] * len(cls({}).list_arguments())
    rng = np.random.RandomState(0)
    arrays = [x if isinstance(x, np.ndarray) else rng.uniform(0.5, 1.5, x) for x in inputs]
    return params, arrays


def _foreach(v):
    outs, states = mx.sym.contrib.foreach(lambda x, s: (x * s[0] + v[2], [s[0] * 2]), v[0],
                                          [v[1]])
    return mx.sym.Group([outs, states[0]])


def _while(v):
    outs, final = mx.sym.contrib.while_loop(lambda a, b: mx.sym.sum(a) < 8,
                                            lambda a, b: (a * b, [a * 2, b + v[2]]),
                                            [v[0], v[1]], max_iterations=3)
    return mx.sym.Group([outs] + final)


def _cond(v):
    return mx.sym.contrib.cond(mx.sym.sum(v[0]) > 1, lambda: v[0] * v[1], lambda: v[1] - v[0])


def _cached_op(v):
    a, b = mx.sym.var('a'), mx.sym.var('b')
    return mx.sym._CachedOp(v[0], v[1], subgraph=(a * b + mx.sym.sin(a)).tojson())


# control-flow nodes are made by their front-ends (their bodies are graphs)
BUILDERS = {'_foreach': _foreach, '_while_loop': _while, '_cond': _cond,
            '_CachedOp': _cached_op}
SAMPLES.update({'_CachedOp': ({}, [(2, 3), (2, 3)]),
                '_foreach': ({}, [(3, 2), (2,), (2,)]),
                '_while_loop': ({}, [(2,), (2,), (2,)]),
                '_cond': ({}, [(2,), (2,)])})


def _bind(name, params, arrays, reqs):
    names = ['in%d' % i for i in range(len(arrays))]
    variables = [mx.sym.var(n) for n in names]
    sym = BUILDERS[name](variables) if name in BUILDERS else \
        getattr(mx.sym, name)(*variables, **params)
    args = {n: mx.nd.array(a, dtype=a.dtype) for n, a in zip(names, arrays)}
    grads = {n: mx.nd.full(a.shape, SENTINEL, dtype=a.dtype) for n, a in zip(names, arrays)}
    shapes = {n: a.shape for n, a in zip(names, arrays)}
    _, _, aux_shapes = sym.infer_shape(**shapes)
    aux = [mx.nd.ones(s, dtype=np.float64) for s in aux_shapes]
    exe = sym.bind(mx.cpu(), args, args_grad=grads, grad_req=dict(zip(names, reqs)),
                   aux_states=aux)
    exe.forward(is_train=True)
    exe._plan._sink[...] = SINK_BYTE      # pylint: disable=protected-access
    heads = [mx.nd.array(np.linspace(0.5, 1.5, o.size).reshape(o.shape), dtype=o.dtype)
             for o in exe.outputs]
    exe.backward(heads)
    return exe, [grads[n].asnumpy() for n in names]


@pytest.mark.parametrize('name', _canonical_names())
def test_null_input_gradient_is_never_written(name):
    if name == 'Custom':
        _register_custom()
    params, arrays = _sample(name)
    never = NEVER_GRAD.get(name, set())
    if never is None:
        never = set(range(len(arrays)))
    base = ['null' if i in never else 'write' for i in range(len(arrays))]
    try:
        _, reference = _bind(name, params, arrays, base)
    except mx.MXNetError as err:
        pytest.fail('%s cannot be bound from its sample (%s): add an entry to SAMPLES'
                    % (name, err))
    for i in never:
        assert (reference[i] == arrays[i].dtype.type(SENTINEL)).all(), (name, i)
    for null in sorted(set(range(len(arrays))) - never):
        reqs = list(base)
        reqs[null] = 'null'
        exe, grads = _bind(name, params, arrays, reqs)
        assert (grads[null] == arrays[null].dtype.type(SENTINEL)).all(), \
            '%s wrote the gradient of input %d (grad_req null)' % (name, null)
        for i, (got, want) in enumerate(zip(grads, reference)):
            if i != null:
                np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12,
                                           err_msg='%s input %d' % (name, i))
        sink = exe._plan._sink      # pylint: disable=protected-access
        assert (sink == SINK_BYTE).all(), \
            '%s backward wrote into input %d although its request is null' % (name, null)


def test_samples_name_registered_operators():
    unknown = sorted((set(SAMPLES) | NO_ARGUMENTS | DYNAMIC_SHAPE)
                     - set(registry.list_operators()))
    assert not unknown, unknown


def test_module_with_label_broadcast_in_loss():
    """Module binds labels with grad_req 'null'; a loss broadcasting the label used to
    crash in backward (the label gradient was None)."""
    data, label = mx.sym.var('data'), mx.sym.var('softmax_label')
    fc = mx.sym.FullyConnected(data, num_hidden=3, name='fc')
    loss = mx.sym.MakeLoss(mx.sym.sum(mx.sym.square(mx.sym.broadcast_sub(fc, label))))
    mod = mx.mod.Module(loss, data_names=['data'], label_names=['softmax_label'])
    mod.bind(data_shapes=[('data', (4, 2))], label_shapes=[('softmax_label', (4, 1))])
    mod.init_params(mx.init.Constant(0.5))
    x = np.array([[1., 2.], [0., 1.], [3., 1.], [1., 1.]])
    y = np.array([[0.], [2.], [0.], [1.]])
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.array(y)]), is_train=True)
    mod.backward()
    grad = mod._exec_group.grad_arrays[0][0].asnumpy()  # pylint: disable=protected-access
    # weights 0.5, bias 0 (Constant initialises weights only)
    expected = (2 * (x @ np.full((2, 3), 0.5) - y)).T @ x
    np.testing.assert_allclose(grad, expected, rtol=1e-6)


def _update_samples():
    """The fused optimizer updates are not differentiable: forward-only bindings."""
    from symmod.ops.fused_updates import UPDATES
    f32 = lambda *shape: np.full(shape, 0.5, np.float32)      # noqa: E731
    for name, layout in UPDATES.items():
        NEVER_GRAD[name] = None
        if layout[0] == 'multi':
            _, per_weight, trailing = layout
            params = {'num_weights': 1}
            if not trailing:
                params.update(lrs=(0.1,), wds=(0.0,))
            SAMPLES[name] = (params, [f32(2, 3)] * per_weight + [f32(1)] * trailing)
            continue
        arguments, _ = layout
        params = {'lr': 0.1}
        if 'lamb_update_phase1' in name or name == 'ftml_update':
            params = {'t': 1} if 'lamb' in name else {'lr': 0.1, 't': 1}
        SAMPLES[name] = (params, [f32(1) if a in ('r1', 'r2') else f32(2, 3)
                                  for a in arguments])
    for name, sample in (('multi_sum_sq', ({'num_arrays': 2}, [f32(2, 3), f32(3)])),
                         ('multi_lars', ({'eta': 1.0, 'eps': 1e-8}, [f32(2)] * 4))):
        NEVER_GRAD[name] = None
        SAMPLES[name] = sample


_update_samples()
