"""``mx.runtime``: which of MXNet's build features this installation of symmod provides.

MXNet reports the options its native library was compiled with; symmod has no native
library, so each feature says whether symmod offers what scripts test it for: ``CUDA``
when numba sees a CUDA device (the optimizer kernels and GPU arrays use it; graphs still
bind on CPU contexts only), ``OPENMP`` and ``BLAS_OPEN`` for numba's threads and numpy's
BLAS, ``LAPACK`` for numpy.linalg, ``INT64_TENSOR_SIZE`` (numpy indexes with 64 bits),
``PROFILER`` when :mod:`mx.profiler` is present; the others are off. Names and order are
MXNet 1.9.1's.

Examples
--------
>>> features = mx.runtime.Features()
>>> features.is_enabled('CUDNN')
False
"""
import collections

__all__ = ['Feature', 'feature_list', 'Features']

_NAMES = ('CUDA', 'CUDNN', 'NCCL', 'CUDA_RTC', 'TENSORRT', 'CPU_SSE', 'CPU_SSE2', 'CPU_SSE3',
          'CPU_SSE4_1', 'CPU_SSE4_2', 'CPU_SSE4A', 'CPU_AVX', 'CPU_AVX2', 'OPENMP', 'SSE',
          'F16C', 'JEMALLOC', 'BLAS_OPEN', 'BLAS_ATLAS', 'BLAS_MKL', 'BLAS_APPLE', 'LAPACK',
          'MKLDNN', 'OPENCV', 'CAFFE', 'PROFILER', 'DIST_KVSTORE', 'CXX14',
          'INT64_TENSOR_SIZE', 'SIGNAL_HANDLER', 'DEBUG', 'TVM_OP')


class Feature:
    """One feature: its ``name`` and whether it is ``enabled``."""
    __slots__ = ('name', 'enabled')

    def __init__(self, name, enabled):
        self.name = name
        self.enabled = bool(enabled)

    def __repr__(self):
        return '%s %s' % ('\u2714' if self.enabled else '\u2716', self.name)


def _enabled():
    """The names of the features symmod provides here."""
    import importlib.util
    from .context import num_gpus
    names = {'OPENMP', 'BLAS_OPEN', 'LAPACK', 'INT64_TENSOR_SIZE'}
    if num_gpus() > 0:
        names.add('CUDA')
    if importlib.util.find_spec('symmod.profiler') is not None:
        names.add('PROFILER')
    return names


def feature_list():
    """All features, in MXNet's order.

    Returns
    -------
    list of Feature
    """
    enabled = _enabled()
    return [Feature(name, name in enabled) for name in _NAMES]


class Features(collections.OrderedDict):
    """Ordered dict of feature name to :class:`Feature` (one shared instance)."""
    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            super().__init__(cls.instance, [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):     # pylint: disable=super-init-not-called
        """The features are filled once, by ``__new__``."""

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature ``feature_name`` (any case) is enabled.

        Raises
        ------
        RuntimeError
            For a name MXNet does not define.
        """
        feature_name = feature_name.upper()
        if feature_name not in self:
            raise RuntimeError("Feature '{}' is unknown, known features are: {}".format(
                feature_name, list(self.keys())))
        return self[feature_name].enabled
