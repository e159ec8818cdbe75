"""Which operators AMP runs in float16, which in float32, and which at the widest dtype
of their inputs. Only registered operators are listed; everything else runs in whatever
dtype it receives (``FP16_FP32_FUNCS``)."""
from ...ops import registry

__all__ = ['FP16_FUNCS', 'FP32_FUNCS', 'WIDEST_TYPE_CASTS', 'CONDITIONAL_FP32_FUNCS',
           'LOSS_OUTPUT_FUNCTIONS', 'FP16_FP32_FUNCS']


def _registered(names):
    return [n for n in names if registry.exists(n)]


# matrix products and convolutions: where float16 saves time and memory
FP16_FUNCS = _registered(['Convolution', 'Deconvolution', 'FullyConnected', 'RNN'])

# numerically sensitive: reductions, exponentials and logarithms, normalizations, losses
FP32_FUNCS = _registered([
    'arccos', 'arccosh', 'arcsin', 'arctan', 'arctanh', 'cbrt', 'cosh', 'erfinv', 'exp',
    'expm1', 'gamma', 'gammaln', 'log', 'log10', 'log1p', 'log2', 'rcbrt', 'reciprocal',
    'rsqrt', 'sinh', 'sqrt', 'tan', 'square', 'norm', 'sum', 'mean', 'prod', 'nansum',
    'nanprod', 'moments', 'cumsum', '_np_cumsum', 'softmax', 'log_softmax', 'softmin',
    'SoftmaxActivation', 'SoftmaxOutput', 'InstanceNorm', 'LayerNorm', 'GroupNorm',
    'L2Normalization', 'LRN', 'LinearRegressionOutput', 'LogisticRegressionOutput',
    'MAERegressionOutput', 'SVMOutput', 'softmax_cross_entropy', 'smooth_l1', 'MakeLoss',
    'Custom', 'CTCLoss', 'topk', 'argsort', 'sort', '_linalg_gemm', '_linalg_gemm2',
    '_linalg_potrf', '_linalg_potri', '_linalg_trmm', '_linalg_trsm', '_linalg_sumlogdiag',
    '_linalg_syrk', '_linalg_gelqf', '_linalg_syevd', '_linalg_inverse', '_linalg_det',
    '_linalg_slogdet', 'broadcast_power', '_power', '_power_scalar', '_rpower_scalar',
    'IdentityAttachKLSparseReg'])

# several inputs that must share a dtype: cast all of them to the widest
WIDEST_TYPE_CASTS = _registered([
    'elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div', '_add', '_sub', '_mul',
    '_div', '_mod', '_maximum', '_minimum', '_equal', '_not_equal', '_greater',
    '_greater_equal', '_lesser', '_lesser_equal', '_logical_and', '_logical_or',
    '_logical_xor', '_hypot', 'broadcast_add', 'broadcast_sub', 'broadcast_mul',
    'broadcast_div', 'broadcast_mod', 'broadcast_maximum', 'broadcast_minimum',
    'broadcast_hypot', 'broadcast_equal', 'broadcast_not_equal', 'broadcast_greater',
    'broadcast_greater_equal', 'broadcast_lesser', 'broadcast_lesser_equal',
    'broadcast_logical_and', 'broadcast_logical_or', 'broadcast_logical_xor', 'Concat',
    'stack', 'add_n', 'dot', 'batch_dot', 'where', 'Correlation', '_random_pdf_uniform',
    '_random_pdf_normal', '_random_pdf_gamma', '_random_pdf_exponential',
    '_random_pdf_poisson', '_random_pdf_negative_binomial',
    '_random_pdf_generalized_negative_binomial', '_random_pdf_dirichlet'])

# operators run in float32 only for some parameter values: (name, parameter, values)
CONDITIONAL_FP32_FUNCS = [(name, param, values) for name, param, values in (
    ('Activation', 'act_type', ['softrelu']),
    ('LeakyReLU', 'act_type', ['elu', 'selu'])) if registry.exists(name)]

# loss heads whose gradient AMP scales by the loss scale (their grad_scale parameter)
LOSS_OUTPUT_FUNCTIONS = _registered(['SoftmaxOutput', 'LinearRegressionOutput',
                                     'LogisticRegressionOutput', 'MAERegressionOutput'])

_LISTED = set(FP16_FUNCS) | set(FP32_FUNCS) | set(WIDEST_TYPE_CASTS) | \
    {n for n, _, _ in CONDITIONAL_FP32_FUNCS}
FP16_FP32_FUNCS = sorted(n for n in registry.list_operators()
                         if registry.get(n).name not in _LISTED and n not in _LISTED)
