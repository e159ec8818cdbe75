"""The legacy vision layers: GridGenerator, BilinearSampler, SpatialTransformer, Crop,
ROIPooling, Correlation, SVMOutput and IdentityAttachKLSparseReg — against MXNet 1.9.1's
numbers (tests/data/gen/gen_ops_vision_reference.py), float64 finite differences, and
the request ('add') and error rules."""
import numpy as np
import pytest

import symmod as mx
from symmod.test_utils import check_numeric_gradient

from recorded_cases import case_names, replay

TESTED_OPS = {'GridGenerator', 'BilinearSampler', 'SpatialTransformer', 'Crop', 'ROIPooling',
              'Correlation', 'SVMOutput', 'IdentityAttachKLSparseReg', '_contrib_ROIAlign',
              '_contrib_PSROIPooling', '_contrib_BilinearResize2D',
              '_contrib_AdaptiveAvgPooling2D',
              '_contrib_DeformableConvolution', '_contrib_ModulatedDeformableConvolution',
              '_contrib_RROIAlign'}
RECORDED = TESTED_OPS | {'contrib.ROIAlign', 'contrib.RROIAlign', 'contrib.PSROIPooling', 'contrib.BilinearResize2D',
                         'contrib.AdaptiveAvgPooling2D', 'contrib.DeformableConvolution',
                         'contrib.ModulatedDeformableConvolution'}
REFERENCE = 'ops_vision_reference.npz'
RNG = np.random.RandomState(7)


@pytest.mark.parametrize('name', case_names(REFERENCE, RECORDED))
def test_matches_mxnet_reference(name):
    replay(REFERENCE, name, rtol=1e-5, atol=1e-5)


def _check_gradient(sym, location, **kwargs):
    check_numeric_gradient(sym, location, numeric_eps=1e-6, rtol=1e-5, atol=1e-7,
                           dtype=np.float64, **kwargs)


def test_bilinear_sampler_numeric_gradient():
    data, grid = mx.sym.var('data'), mx.sym.var('grid')
    # positions away from pixel boundaries, where the sampler is differentiable
    gx = (np.array([0.3, 1.4, 2.6])[None, :] + np.zeros((2, 1))) / 2.0 - 1
    gy = (np.array([0.2, 2.7])[:, None] + np.zeros((1, 3))) / 1.5 - 1
    location = {'data': RNG.randn(2, 2, 4, 5),
                'grid': np.broadcast_to(np.stack([gx, gy])[None], (2, 2, 2, 3)).copy()}
    _check_gradient(mx.sym.BilinearSampler(data, grid), location)


def test_spatial_transformer_numeric_gradient():
    sym = mx.sym.SpatialTransformer(mx.sym.var('data'), mx.sym.var('loc'), target_shape=(3, 4),
                                    transform_type='affine', sampler_type='bilinear')
    location = {'data': RNG.randn(1, 2, 5, 5),
                'loc': np.array([[0.83, 0.11, 0.07, -0.13, 0.91, 0.057]])}
    _check_gradient(sym, location)


@pytest.mark.parametrize('transform, shape', [('affine', (2, 6)), ('warp', (2, 2, 3, 4))])
def test_grid_generator_numeric_gradient(transform, shape):
    sym = mx.sym.GridGenerator(mx.sym.var('data'), transform_type=transform,
                               target_shape=(3, 4))
    _check_gradient(sym, {'data': RNG.randn(*shape)})


def test_crop_and_correlation_numeric_gradient():
    crop = mx.sym.Crop(mx.sym.var('a'), mx.sym.var('b'), offset=(1, 1))
    _check_gradient(crop, {'a': RNG.randn(1, 2, 5, 5), 'b': RNG.randn(1, 1, 3, 2)})
    corr = mx.sym.Correlation(mx.sym.var('a'), mx.sym.var('b'), kernel_size=3,
                              max_displacement=1, pad_size=1)
    _check_gradient(corr, {'a': RNG.randn(1, 2, 4, 4), 'b': RNG.randn(1, 2, 4, 4)})


def test_roi_pooling_numeric_gradient():
    sym = mx.sym.ROIPooling(mx.sym.var('data'), mx.sym.var('rois'), pooled_size=(2, 2),
                            spatial_scale=1.0)
    data = RNG.permutation(2 * 36).reshape(1, 2, 6, 6) * 0.1     # distinct maxima
    _check_gradient(sym, {'data': data, 'rois': np.array([[0, 0, 1, 4, 5]])},
                    grad_nodes=['data'])


def test_kl_sparse_reg_gradient_and_running_mean():
    data = RNG.uniform(0.1, 0.9, (4, 3))
    sym = mx.sym.IdentityAttachKLSparseReg(mx.sym.var('data'), sparseness_target=0.1,
                                           penalty=0.5, momentum=0.5, name='kl')
    exe = sym.bind(mx.cpu(), {'data': mx.nd.array(data, dtype=np.float64)},
                   args_grad={'data': mx.nd.zeros((4, 3), dtype=np.float64)},
                   aux_states={'kl_moving_avg': mx.nd.full((3,), 0.4, dtype=np.float64)})
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones((4, 3), dtype=np.float64))
    moving = 0.5 * 0.4 + 0.5 * data.mean(axis=0)
    np.testing.assert_allclose(exe.aux_dict['kl_moving_avg'].asnumpy(), moving)
    expected = 1 + 0.5 * (-0.1 / moving + 0.9 / (1 - moving))
    np.testing.assert_allclose(exe.grad_dict['data'].asnumpy(),
                               np.broadcast_to(expected, (4, 3)))


def test_svm_output_gradient_formula():
    x = np.array([[0.5, -2.0, 1.5], [-0.2, 0.1, 3.0]])
    label = np.array([0, 2])
    sym = mx.sym.SVMOutput(mx.sym.var('x'), mx.sym.var('y'), margin=1.0,
                           regularization_coefficient=2.0)
    exe = sym.bind(mx.cpu(), {'x': mx.nd.array(x), 'y': mx.nd.array(label)},
                   args_grad={'x': mx.nd.zeros((2, 3))})
    exe.forward(is_train=True)
    exe.backward()
    onehot = np.eye(3)[label]
    expected = np.where(onehot == 1, -2.0 * 2 * np.maximum(1 - x, 0),
                        2.0 * 2 * np.maximum(1 + x, 0))
    np.testing.assert_allclose(exe.grad_dict['x'].asnumpy(), expected, rtol=1e-6)


@pytest.mark.parametrize('make, shapes', [
    (lambda a, b: mx.sym.BilinearSampler(a, b), [(1, 2, 3, 3), (1, 2, 2, 2)]),
    (lambda a, b: mx.sym.Correlation(a, b, kernel_size=1, max_displacement=1),
     [(1, 2, 3, 3), (1, 2, 3, 3)]),
    (lambda a, b: mx.sym.Crop(a, b), [(1, 1, 4, 4), (1, 1, 2, 3)]),
    (lambda a, b: mx.sym.ROIPooling(a, b, pooled_size=(2, 2), spatial_scale=1.0),
     [(1, 1, 4, 4), (1, 5)]),
])
def test_grad_req_add_accumulates(make, shapes):
    sym = make(mx.sym.var('a'), mx.sym.var('b'))
    values = [RNG.uniform(0.1, 0.9, s) for s in shapes]
    if shapes[1] == (1, 5):
        values[1] = np.array([[0, 0, 0, 3, 3]])
    grads = []
    for req in ('write', 'add'):
        args = {'a': mx.nd.array(values[0]), 'b': mx.nd.array(values[1])}
        grad = {'a': mx.nd.ones(shapes[0]), 'b': mx.nd.ones(shapes[1])}
        exe = sym.bind(mx.cpu(), args, args_grad=grad, grad_req=req)
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones(exe.outputs[0].shape))
        grads.append([g.asnumpy() for g in (grad['a'], grad['b'])])
    for written, added in zip(*grads):
        np.testing.assert_allclose(added, written + 1, rtol=1e-6)


def test_shape_errors_name_the_problem():
    with pytest.raises(mx.MXNetError, match='grid must be'):
        mx.nd.BilinearSampler(mx.nd.ones((1, 1, 3, 3)), mx.nd.ones((1, 3, 2, 2)))
    with pytest.raises(mx.MXNetError, match='rois must be'):
        mx.nd.ROIPooling(mx.nd.ones((1, 1, 3, 3)), mx.nd.ones((1, 4)), pooled_size=(1, 1),
                         spatial_scale=1.0)
    with pytest.raises(mx.MXNetError, match='kernel_size must be odd'):
        mx.nd.Correlation(mx.nd.ones((1, 1, 3, 3)), mx.nd.ones((1, 1, 3, 3)), kernel_size=2)
    with pytest.raises(mx.MXNetError, match='h_w'):
        mx.nd.Crop(mx.nd.ones((1, 1, 3, 3)), h_w=(4, 1))
    with pytest.raises(mx.MXNetError, match='target_shape'):
        mx.nd.GridGenerator(mx.nd.ones((1, 6)), transform_type='affine')


@pytest.mark.parametrize('make', [
    lambda d, r: mx.sym.contrib.ROIAlign(d, r, pooled_size=(2, 2), spatial_scale=1.0,
                                        sample_ratio=2),
    lambda d, r: mx.sym.contrib.ROIAlign(d, r, pooled_size=(2, 1), spatial_scale=1.0,
                                        position_sensitive=True, aligned=True),
    lambda d, r: mx.sym.contrib.PSROIPooling(d, r, spatial_scale=1.0, output_dim=1,
                                            pooled_size=2),
])
def test_roi_align_and_psroi_numeric_gradient(make):
    sym = make(mx.sym.var('data'), mx.sym.var('rois'))
    _check_gradient(sym, {'data': RNG.randn(1, 4, 5, 5),
                          'rois': np.array([[0, 0.3, 0.6, 3.4, 3.7]])}, grad_nodes=['data'])


@pytest.mark.parametrize('make, shape', [
    (lambda d: mx.sym.contrib.BilinearResize2D(d, height=5, width=3), (1, 2, 3, 4)),
    (lambda d: mx.sym.contrib.BilinearResize2D(d, height=2, width=7, align_corners=False),
     (1, 1, 4, 3)),
    (lambda d: mx.sym.contrib.AdaptiveAvgPooling2D(d, output_size=(2, 3)), (2, 1, 5, 7)),
])
def test_resize_numeric_gradient(make, shape):
    _check_gradient(make(mx.sym.var('data')), {'data': RNG.randn(*shape)})


@pytest.mark.parametrize('modulated', [False, True])
def test_deformable_convolution_numeric_gradient(modulated):
    names = ['data', 'offset'] + (['mask'] if modulated else []) + ['weight', 'bias']
    op = mx.sym.contrib.ModulatedDeformableConvolution if modulated else \
        mx.sym.contrib.DeformableConvolution
    sym = op(*[mx.sym.var(n) for n in names], kernel=(2, 2), pad=(1, 0), num_filter=2,
             num_deformable_group=2)
    # offsets away from integers, where the bilinear sampling is differentiable
    offsets = np.round(RNG.uniform(-1.5, 1.5, (1, 16, 4, 2)) * 4) / 4 + 0.13
    location = {'data': RNG.randn(1, 2, 3, 3), 'offset': offsets,
                'weight': RNG.randn(2, 2, 2, 2), 'bias': RNG.randn(2)}
    if modulated:
        location['mask'] = RNG.uniform(0.2, 1, (1, 8, 4, 2))
    _check_gradient(sym, location)


def test_rroi_align_has_no_backward_and_checks_its_rois():
    sym = mx.sym.contrib.RROIAlign(mx.sym.var('data'), mx.sym.var('rois'), pooled_size=(2, 2),
                                   spatial_scale=1.0)
    exe = sym.simple_bind(mx.cpu(), data=(1, 2, 4, 4), rois=(1, 6))
    exe.forward(is_train=True, data=RNG.randn(1, 2, 4, 4), rois=np.array([[0, 2, 2, 2, 2, 45]]))
    with pytest.raises(mx.MXNetError, match='RROIAlign: Backward is not supported'):
        exe.backward(mx.nd.ones((1, 2, 2, 2)))
    with pytest.raises(mx.MXNetError, match=r'rois must be \(num_rois, 6\)'):
        sym.infer_shape(data=(1, 2, 4, 4), rois=(1, 5))
