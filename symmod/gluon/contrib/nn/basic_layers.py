"""gluon.contrib.nn layers: Concurrent / HybridConcurrent (children side by side, outputs
concatenated), Identity, SparseEmbedding (row_sparse weight pulled per batch),
SyncBatchNorm (batch statistics over several devices) and
PixelShuffle1D/2D/3D (channels regrouped into a finer spatial grid)."""
import warnings

from .... import context, ndarray as nd
from ...block import Block
from ...hybrid_block import HybridBlock
from ...nn import Sequential, HybridSequential, BatchNorm

__all__ = ['Concurrent', 'HybridConcurrent', 'Identity', 'SparseEmbedding', 'SyncBatchNorm',
           'PixelShuffle1D', 'PixelShuffle2D', 'PixelShuffle3D']


class Concurrent(Sequential):
    """Feeds its input to every child and concatenates their outputs along ``axis``.

    Parameters
    ----------
    axis : int, default -1
        The axis the outputs are concatenated on.

    Examples
    --------
    >>> net = mx.gluon.contrib.nn.Concurrent()
    >>> with net.name_scope():
    ...     net.add(mx.gluon.nn.Dense(10, activation='relu'))
    ...     net.add(mx.gluon.contrib.nn.Identity())
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """:class:`Concurrent` for HybridBlocks: hybridizable and exportable.

    Parameters
    ----------
    axis : int, default -1
        The axis the outputs are concatenated on.
    """

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class Identity(HybridBlock):
    """Returns its input unchanged (a residual branch of a :class:`HybridConcurrent`)."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)

    def hybrid_forward(self, F, x):
        return x


class SparseEmbedding(Block):
    """Embedding whose weight and weight gradient are row_sparse: the weight lives in
    the Trainer's KVStore and each forward pulls only the rows its input names, so a
    huge vocabulary never needs a dense copy per context. Needs a ``gluon.Trainer``
    before the first forward. Gradients are row_sparse and the optimizers update lazily
    (only the looked-up rows) by default.

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary (maximum index + 1).
    output_dim : int
        Size of each embedding vector.
    dtype : str or numpy dtype, default 'float32'
        Type of the weight and the output.
    weight_initializer : Initializer, optional
        Initializer of the ``(input_dim, output_dim)`` weight.

    Examples
    --------
    >>> emb = mx.gluon.contrib.nn.SparseEmbedding(1000, 8)
    >>> emb.initialize()
    >>> trainer = mx.gluon.Trainer(emb.collect_params(), 'sgd')
    >>> emb(mx.nd.array([[3, 7]])).shape
    (1, 2, 8)
    """

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None,
                 **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype,
                        'sparse_grad': True}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      grad_stype='row_sparse', stype='row_sparse')

    def forward(self, x):
        weight = self.weight.row_sparse_data(x)
        return nd.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '{name}({input_dim} -> {output_dim}, {dtype})'.format(
            name=self.__class__.__name__, **self._kwargs)


class SyncBatchNorm(BatchNorm):
    """Batch normalization whose statistics cover the whole mini-batch spread over
    ``num_devices`` devices (Zhang et al., 2018), on the channel axis 1.

    The devices' forward (and backward) passes meet to share their moments, so they must
    run concurrently, as the executor group of Module runs them; with one device it is
    BatchNorm. See ``symmod/ops/sync_batch_norm.py``.

    Parameters
    ----------
    in_channels : int, default 0
        Number of channels; inferred at the first call when 0.
    num_devices : int, optional
        How many devices share the statistics (default: the number of GPUs, at least 1,
        with a warning).
    momentum, epsilon, center, scale, use_global_stats, beta_initializer,
    gamma_initializer, running_mean_initializer, running_variance_initializer
        As for :class:`~symmod.gluon.nn.BatchNorm`.
    """

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer='zeros',
                 gamma_initializer='ones', running_mean_initializer='zeros',
                 running_variance_initializer='ones', **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is None:
            num_devices = self._get_num_devices()
        self._kwargs = {'eps': epsilon, 'momentum': momentum, 'fix_gamma': not scale,
                        'use_global_stats': use_global_stats, 'ndev': num_devices,
                        'key': self.prefix}

    def _get_num_devices(self):
        warnings.warn('Caution using SyncBatchNorm: if not using all the GPUs, please '
                      'mannually set num_devices', UserWarning)
        return max(context.num_gpus(), 1)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F._contrib_SyncBatchNorm(x, gamma, beta, running_mean, running_var,
                                        name='fwd', **self._kwargs)


def _factors(factor, count):
    try:
        return (int(factor),) * count
    except TypeError:
        factors = tuple(int(f) for f in factor)
        assert len(factors) == count, 'wrong length {}'.format(len(factors))
        return factors


class PixelShuffle1D(HybridBlock):
    r"""Regroups channels into width: ``(N, f*C, W)`` becomes ``(N, C, W*f)``, the ``f``
    channels of a group becoming ``f`` consecutive positions.

    Parameters
    ----------
    factor : int or 1-tuple of int
        The upsampling factor of ``W``.

    Examples
    --------
    >>> mx.gluon.contrib.nn.PixelShuffle1D(2)(mx.nd.zeros((1, 8, 3))).shape
    (1, 4, 6)
    """

    def __init__(self, factor):
        super().__init__()
        self._factor = _factors(factor, 1)[0]

    def hybrid_forward(self, F, x):
        f = self._factor
        x = F.reshape(x, (0, -4, -1, f, 0))        # (N, C, f, W)
        x = F.transpose(x, (0, 1, 3, 2))           # (N, C, W, f)
        return F.reshape(x, (0, 0, -3))            # (N, C, W*f)

    def __repr__(self):
        return '{}({})'.format(self.__class__.__name__, self._factor)


class PixelShuffle2D(HybridBlock):
    r"""Regroups channels into height and width: ``(N, f1*f2*C, H, W)`` becomes
    ``(N, C, H*f1, W*f2)``, each group of ``f1*f2`` channels an ``f1 x f2`` block (Shi et
    al., 2016: sub-pixel convolution upsampling).

    Parameters
    ----------
    factor : int or 2-tuple of int
        The upsampling factors of ``H`` and ``W``.

    Examples
    --------
    >>> mx.gluon.contrib.nn.PixelShuffle2D((2, 3))(mx.nd.zeros((1, 12, 3, 5))).shape
    (1, 2, 6, 15)
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 2)

    def hybrid_forward(self, F, x):
        f1, f2 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2, 0, 0))    # (N, C, f1*f2, H, W)
        x = F.reshape(x, (0, 0, -4, f1, f2, 0, 0))      # (N, C, f1, f2, H, W)
        x = F.transpose(x, (0, 1, 4, 2, 5, 3))          # (N, C, H, f1, W, f2)
        return F.reshape(x, (0, 0, -3, -3))             # (N, C, H*f1, W*f2)

    def __repr__(self):
        return '{}({})'.format(self.__class__.__name__, self._factors)


class PixelShuffle3D(HybridBlock):
    r"""Regroups channels into depth, height and width: ``(N, f1*f2*f3*C, D, H, W)``
    becomes ``(N, C, D*f1, H*f2, W*f3)``.

    Parameters
    ----------
    factor : int or 3-tuple of int
        The upsampling factors of ``D``, ``H`` and ``W``.

    Examples
    --------
    >>> mx.gluon.contrib.nn.PixelShuffle3D((2, 3, 4))(mx.nd.zeros((1, 48, 3, 5, 7))).shape
    (1, 2, 6, 15, 28)
    """

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, 3)

    def hybrid_forward(self, F, x):
        # one factor at a time: transpose and swapaxes handle at most 6 dimensions
        f1, f2, f3 = self._factors
        x = F.reshape(x, (0, -4, -1, f1 * f2 * f3, 0, 0, 0))   # (N, C, f1*f2*f3, D, H, W)
        x = F.swapaxes(x, 2, 3)                                # (N, C, D, f1*f2*f3, H, W)
        x = F.reshape(x, (0, 0, 0, -4, f1, f2 * f3, 0, 0))     # (N, C, D, f1, f2*f3, H, W)
        x = F.reshape(x, (0, 0, -3, 0, 0, 0))                  # (N, C, D*f1, f2*f3, H, W)
        x = F.swapaxes(x, 3, 4)                                # (N, C, D*f1, H, f2*f3, W)
        x = F.reshape(x, (0, 0, 0, 0, -4, f2, f3, 0))          # (N, C, D*f1, H, f2, f3, W)
        x = F.reshape(x, (0, 0, 0, -3, 0, 0))                  # (N, C, D*f1, H*f2, f3, W)
        x = F.swapaxes(x, 4, 5)                                # (N, C, D*f1, H*f2, W, f3)
        return F.reshape(x, (0, 0, 0, 0, -3))                  # (N, C, D*f1, H*f2, W*f3)

    def __repr__(self):
        return '{}({})'.format(self.__class__.__name__, self._factors)
