"""Record MXNet 1.9.1's results for the legacy vision layers (tests/ops/test_vision_ops.py):
GridGenerator, BilinearSampler, SpatialTransformer, Crop, ROIPooling, Correlation,
SVMOutput and IdentityAttachKLSparseReg.

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_ops_vision_reference.py

Writes tests/data/ops_vision_reference.npz (layout: see symbolic_cases.py).
"""
import os

import numpy as np

from symbolic_cases import case, randn, uniform, write

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'ops_vision_reference.npz')


def build_cases():
    affine = np.array([[0.9, 0.1, 0.05, -0.2, 1.1, -0.1], [1.2, -0.3, 0.2, 0.1, 0.8, 0.0]],
                      np.float32)
    case('grid_affine', 'GridGenerator', {'transform_type': 'affine', 'target_shape': (3, 4)},
         {'data': affine})
    case('grid_warp', 'GridGenerator', {'transform_type': 'warp'},
         {'data': randn(2, 2, 3, 4)})
    case('sampler', 'BilinearSampler', {},
         {'data': randn(2, 3, 4, 5), 'grid': uniform(-1.2, 1.2, 2, 2, 3, 4)})
    case('sampler_inside', 'BilinearSampler', {},
         {'data': randn(1, 2, 5, 5), 'grid': uniform(-0.9, 0.9, 1, 2, 6, 3)})
    case('stn', 'SpatialTransformer',
         {'target_shape': (4, 5), 'transform_type': 'affine', 'sampler_type': 'bilinear'},
         {'data': randn(2, 3, 5, 6), 'loc': affine})

    x = randn(2, 3, 6, 7)
    case('crop_hw', 'Crop', {'num_args': 1, 'h_w': (3, 4), 'offset': (2, 1)}, {'arg0': x})
    case('crop_center', 'Crop', {'num_args': 1, 'h_w': (3, 4), 'center_crop': True},
         {'arg0': x})
    case('crop_like', 'Crop', {'num_args': 2, 'offset': (1, 2)},
         {'arg0': x, 'arg1': randn(2, 1, 4, 4)})

    rois = np.array([[0, 1, 1, 6, 5], [1, 0, 2, 13, 15], [0, 3.4, 2.6, 3.4, 2.6],
                     [1, -4, -4, 30, 30]], np.float32)
    case('roipool', 'ROIPooling', {'pooled_size': (2, 3), 'spatial_scale': 0.5},
         {'data': randn(2, 3, 8, 8), 'rois': rois})
    case('roipool_scale1', 'ROIPooling', {'pooled_size': (3, 3), 'spatial_scale': 1.0},
         {'data': randn(2, 2, 6, 6), 'rois': np.array([[1, 0, 0, 4, 4], [0, 2, 1, 5, 3]],
                                                     np.float32)})

    align_rois = np.array([[0, 1.3, 0.7, 6.2, 5.9], [1, 0, 2.5, 13, 15.1],
                           [0, 3.4, 2.6, 3.5, 2.7], [1, -4, -4, 30, 30]], np.float32)
    feat = randn(2, 8, 9, 8)
    align = 'contrib.ROIAlign'
    case('roialign', align, {'pooled_size': (2, 2), 'spatial_scale': 0.5},
         {'data': feat, 'rois': align_rois})
    case('roialign_ratio2_aligned', align, {'pooled_size': (3, 2), 'spatial_scale': 0.5,
                                            'sample_ratio': 2, 'aligned': True},
         {'data': feat, 'rois': align_rois[:2]})
    case('roialign_sensitive', align, {'pooled_size': (2, 2), 'spatial_scale': 1.0,
                                       'position_sensitive': True},
         {'data': feat, 'rois': align_rois})
    case('psroipool', 'contrib.PSROIPooling', {'spatial_scale': 0.5, 'output_dim': 2,
                                               'pooled_size': 2},
         {'data': feat, 'rois': align_rois})
    case('psroipool_group', 'contrib.PSROIPooling', {'spatial_scale': 1.0, 'output_dim': 2,
                                                     'pooled_size': 3, 'group_size': 2},
         {'data': feat, 'rois': align_rois[:3]})

    img = randn(2, 3, 5, 6)
    resize = 'contrib.BilinearResize2D'
    case('resize_up', resize, {'height': 9, 'width': 11}, {'data': img})
    case('resize_down_noalign', resize, {'height': 3, 'width': 4, 'align_corners': False},
         {'data': img})
    case('resize_scale', resize, {'scale_height': 1.5, 'scale_width': 0.7}, {'data': img})
    case('resize_odd_scale', resize, {'mode': 'odd_scale', 'scale_height': 2.0,
                                      'scale_width': 0.5}, {'data': img})
    case('resize_like', resize, {'mode': 'like'}, {'data': img, 'like': randn(2, 1, 7, 2)})
    case('resize_to_odd_up', resize, {'mode': 'to_odd_up'}, {'data': img})
    case('resize_to_even_down', resize, {'mode': 'to_even_down'}, {'data': randn(1, 2, 5, 7)})
    case('resize_one', resize, {'height': 1, 'width': 1}, {'data': img})
    pool = 'contrib.AdaptiveAvgPooling2D'
    case('adaptive_2x4', pool, {'output_size': (2, 4)}, {'data': img})
    case('adaptive_square', pool, {'output_size': 4}, {'data': randn(1, 2, 7, 9)})
    case('adaptive_global', pool, {}, {'data': img})

    # MXNet 1.9.1 runs deformable convolutions forward only on the CPU
    offsets = randn(2, 2 * 2 * 9, 5, 6) * 1.5
    dcn_args = {'data': randn(2, 4, 5, 6), 'offset': offsets, 'weight': randn(6, 2, 3, 3),
                'bias': randn(6)}
    case('deform_conv', 'contrib.DeformableConvolution',
         {'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 6, 'num_group': 2,
          'num_deformable_group': 2}, dcn_args, backward=False)
    case('deform_conv_stride_dilate', 'contrib.DeformableConvolution',
         {'kernel': (2, 2), 'stride': (2, 1), 'dilate': (2, 2), 'num_filter': 3,
          'no_bias': True},
         {'data': randn(1, 3, 6, 7), 'offset': randn(1, 8, 2, 5), 'weight': randn(3, 3, 2, 2)},
         backward=False)
    case('modulated_deform_conv', 'contrib.ModulatedDeformableConvolution',
         {'kernel': (3, 3), 'pad': (1, 1), 'num_filter': 6, 'num_group': 2,
          'num_deformable_group': 2},
         dict(dcn_args, mask=uniform(0, 1, 2, 2 * 9, 5, 6)), backward=False)

    a, b = randn(2, 3, 6, 7), randn(2, 3, 6, 7)
    case('corr_mul', 'Correlation', {'kernel_size': 1, 'max_displacement': 2, 'pad_size': 2},
         {'data1': a, 'data2': b})
    case('corr_abs_k3', 'Correlation',
         {'kernel_size': 3, 'max_displacement': 2, 'stride1': 2, 'stride2': 2, 'pad_size': 3,
          'is_multiply': False},
         {'data1': a, 'data2': b})
    case('corr_nopad', 'Correlation', {'kernel_size': 3, 'max_displacement': 1},
         {'data1': a, 'data2': b})

    scores = randn(5, 4) * 1.5
    labels = np.array([0, 3, 1, 1, 2], np.float32)
    case('svm_l2', 'SVMOutput', {'margin': 1.0, 'regularization_coefficient': 0.5},
         {'data': scores, 'label': labels}, no_grad=['label'])
    case('svm_l1', 'SVMOutput', {'margin': 0.8, 'use_linear': True},
         {'data': scores, 'label': labels}, no_grad=['label'])
    case('kl_sparse', 'IdentityAttachKLSparseReg',
         {'sparseness_target': 0.2, 'penalty': 0.01, 'momentum': 0.8},
         {'data': uniform(0.05, 0.95, 6, 4)},
         aux={'moving_avg': np.array([0.3, 0.5, 0.1, 0.7], np.float32)})

    # rotated rois [batch, cx, cy, w, h, degrees]; MXNet 1.9.1 has no RROIAlign backward
    rrois = np.array([[0, 3.1, 4.2, 5.5, 2.5, 30], [1, 6, 2.5, 9, 4.1, 125.4],
                      [0, 1.2, 7.9, 1.6, 12, -60], [1, 8.5, 8.5, 0.4, 0.7, 0]], np.float32)
    case('rroialign', 'contrib.RROIAlign', {'pooled_size': (2, 3), 'spatial_scale': 1.0},
         {'data': feat, 'rois': rrois}, backward=False)
    case('rroialign_ratio2', 'contrib.RROIAlign', {'pooled_size': (3, 2), 'spatial_scale': 0.5,
                                                   'sampling_ratio': 2},
         {'data': feat, 'rois': rrois}, backward=False)


if __name__ == '__main__':
    build_cases()
    write(OUT)
