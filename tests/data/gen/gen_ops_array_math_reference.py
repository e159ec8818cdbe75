"""Record MXNet 1.9.1's results for diag, moments, cumsum, histogram, ravel_multi_index,
unravel_index, softmin, _slice_assign(_scalar), _split_v2, _linspace, im2col, col2im, the
AMP casts and finiteness checks, and the random_pdf_* densities (tests/ops/test_array_math.py,
tests/ops/test_random_ops.py).

Run with the real MXNet (not part of the test suite):

    MXNET_MKLDNN_ENABLED=0 /work/mxnet-venv/bin/python \
        tests/data/gen/gen_ops_array_math_reference.py

(MKLDNN refuses the float16 arrays of the AMP cases.)

Writes tests/data/ops_array_math_reference.npz (layout: see symbolic_cases.py).
"""
import os

import numpy as np

from symbolic_cases import RNG, case, randn, uniform, write

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..',
                   'ops_array_math_reference.npz')


def build_cases():
    case('diag_1d', 'diag', {}, {'data': randn(4)})
    case('diag_1d_k', 'diag', {'k': -2}, {'data': randn(3)})
    case('diag_2d_k', 'diag', {'k': 1}, {'data': randn(3, 4)})
    case('diag_2d_neg', 'diag', {'k': -1}, {'data': randn(4, 3)})
    case('diag_nd_axes', 'diag', {'k': 1, 'axis1': 2, 'axis2': 0}, {'data': randn(3, 2, 4)})
    case('moments_axis1', 'moments', {'axes': (1,)}, {'data': randn(3, 4, 2)})
    case('moments_keep', 'moments', {'axes': (0, 2), 'keepdims': True},
         {'data': randn(3, 4, 2)})
    case('cumsum_axis', 'cumsum', {'axis': 1}, {'a': randn(3, 4)})
    case('cumsum_flat', 'cumsum', {}, {'a': randn(2, 3)})
    case('softmin', 'softmin', {}, {'data': randn(3, 4)})
    case('softmin_axis_t', 'softmin', {'axis': 0, 'temperature': 2.0}, {'data': randn(3, 4)})
    data = uniform(-1, 4, 3, 5)
    data.flat[:3] = [0.0, 3.0, 1.5]          # the edges themselves
    case('histogram_cnt', '_internal._histogram', {'bin_cnt': 4, 'range': (0, 3)},
         {'data': data}, backward=False)
    case('histogram_bins', '_internal._histogram', {},
         {'data': data, 'bins': np.array([-1, 0.5, 1, 2.5, 4], np.float32)}, backward=False)
    case('ravel', 'ravel_multi_index', {'shape': (7, 6)},
         {'data': np.array([[3, 6, 6, 0], [4, 5, 1, 2]], np.float32)}, backward=False)
    case('unravel', 'unravel_index', {'shape': (7, 6)},
         {'data': np.array([22, 41, 37, 0], np.float32)}, backward=False)
    case('slice_assign', '_internal._slice_assign', {'begin': (1, 0), 'end': (3, None),
                                                     'step': (1, 2)},
         {'lhs': randn(4, 5), 'rhs': randn(2, 3)}, backward=False)
    case('slice_assign_scalar', '_internal._slice_assign_scalar',
         {'scalar': 2.5, 'begin': (None, 1), 'end': (None, 4), 'step': (2, 2)},
         {'data': randn(4, 5)}, backward=False)
    case('split_v2_indices', '_internal._split_v2', {'indices': (0, 2, 3), 'axis': 1},
         {'data': randn(2, 5, 2)})
    case('split_v2_sections', '_internal._split_v2',
         {'indices': (), 'sections': 3, 'axis': 0}, {'data': randn(7, 2)})
    case('split_v2_squeeze', '_internal._split_v2',
         {'indices': (0, 1), 'axis': 0, 'squeeze_axis': True}, {'data': randn(2, 3)})
    case('linspace', '_internal._linspace', {'start': -1.0, 'stop': 2.0, 'num': 7}, {},
         backward=False)
    case('linspace_open', '_internal._linspace',
         {'start': 0.0, 'stop': 1.0, 'num': 4, 'endpoint': False}, {}, backward=False)
    image = randn(2, 3, 5, 6)
    case('im2col', 'im2col', {'kernel': (2, 3), 'stride': (1, 2), 'pad': (1, 1)},
         {'data': image})
    case('im2col_dilate', 'im2col', {'kernel': (2, 2), 'dilate': (2, 1)}, {'data': image})
    case('col2im', 'col2im', {'output_size': (5, 6), 'kernel': (2, 3), 'stride': (1, 2),
                              'pad': (1, 1)}, {'data': randn(2, 18, 18)})
    case('amp_cast', 'amp_cast', {'dtype': 'float16'}, {'data': randn(3, 4)})
    case('amp_multicast', 'amp_multicast', {'num_outputs': 2},
         {'data_0': randn(3).astype(np.float16), 'data_1': randn(3)})
    case('amp_multicast_narrow', 'amp_multicast', {'num_outputs': 2, 'cast_narrow': True},
         {'data_0': randn(3).astype(np.float16), 'data_1': randn(3)})
    bad = randn(2, 3)
    bad[1, 2] = np.inf
    case('all_finite', 'all_finite', {}, {'data': bad}, backward=False)
    case('multi_all_finite', 'multi_all_finite', {'num_arrays': 2},
         {'array_0': randn(2), 'array_1': randn(3)}, backward=False)
    case('cast_storage', 'cast_storage', {'stype': 'default'}, {'data': randn(2, 3)})
    pdf_cases()


def positive(low, high, *shape):
    return RNG.uniform(low, high, shape).astype(np.float32)


def pdf_cases():
    x = randn(2, 3, 4)
    for is_log in (False, True):
        tag = '_log' if is_log else ''
        params = {'is_log': is_log}
        case('pdf_normal' + tag, 'random_pdf_normal', params,
             {'sample': x, 'mu': randn(2, 3), 'sigma': positive(0.5, 2, 2, 3)})
        case('pdf_uniform' + tag, 'random_pdf_uniform', params,
             {'sample': positive(0, 1, 2, 4), 'low': positive(-2, -1, 2),
              'high': positive(1, 3, 2)})
        case('pdf_gamma' + tag, 'random_pdf_gamma', params,
             {'sample': positive(0.2, 3, 2, 5), 'alpha': positive(0.5, 3, 2),
              'beta': positive(0.5, 2, 2)})
        case('pdf_exponential' + tag, 'random_pdf_exponential', params,
             {'sample': positive(0.1, 3, 3, 2), 'lam': positive(0.5, 2, 3)})
        counts = np.floor(positive(0, 6, 2, 4)).astype(np.float32)
        case('pdf_poisson' + tag, 'random_pdf_poisson', params,
             {'sample': counts, 'lam': positive(0.5, 4, 2)}, no_grad=['sample'])
        case('pdf_negative_binomial' + tag, 'random_pdf_negative_binomial', params,
             {'sample': counts, 'k': positive(1, 5, 2), 'p': positive(0.2, 0.8, 2)},
             no_grad=['sample'])
        case('pdf_generalized_negative_binomial' + tag,
             'random_pdf_generalized_negative_binomial', params,
             {'sample': counts, 'mu': positive(0.5, 4, 2), 'alpha': positive(0.2, 2, 2)},
             no_grad=['sample'])
        simplex = positive(0.1, 1, 2, 3, 4)
        simplex /= simplex.sum(-1, keepdims=True)
        case('pdf_dirichlet' + tag, 'random_pdf_dirichlet', params,
             {'sample': simplex, 'alpha': positive(0.5, 3, 2, 4)})


if __name__ == '__main__':
    build_cases()
    write(OUT)
