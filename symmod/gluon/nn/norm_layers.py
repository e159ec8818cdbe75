"""Normalization layers that use per-sample statistics: LayerNorm, InstanceNorm and
GroupNorm (BatchNorm, which keeps running statistics, is in ``basic_layers.py``).

Each is one call of the operator of the same name. As in MXNet 1.9.1, ``center`` and
``scale`` only decide whether ``beta`` and ``gamma`` are trained (their ``grad_req``);
the operators always apply them.
"""
from ..hybrid_block import HybridBlock

__all__ = ['LayerNorm', 'InstanceNorm', 'GroupNorm']


def _content(kwargs):
    return ', '.join(['='.join([key, repr(value)]) for key, value in kwargs.items()])


class _AffineNorm(HybridBlock):
    """What the three layers share: the operator arguments ``op_kwargs`` (shown in the
    repr) and ``gamma`` and ``beta`` of ``shape``, trained when ``op_kwargs``' ``scale``
    / ``center`` are set."""

    def __init__(self, op_kwargs, shape, beta_initializer, gamma_initializer, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = op_kwargs
        self._epsilon = op_kwargs['eps']
        self._center = center = op_kwargs['center']
        self._scale = scale = op_kwargs['scale']
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=shape, init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=shape, init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self):
        return '{name}({content}, in_channels={ch})'.format(
            name=self.__class__.__name__, content=_content(self._kwargs),
            ch=self.gamma.shape[0])


class InstanceNorm(_AffineNorm):
    """Normalize each sample and channel over the remaining (spatial) axes:
    ``gamma * (x - mean) / sqrt(var + epsilon) + beta``, with ``gamma`` and ``beta``
    one value per channel.

    Parameters
    ----------
    axis : int, default 1
        The channel axis.
    epsilon : float, default 1e-5
        Added to the variance.
    center : bool, default True
        Train ``beta``.
    scale : bool, default False
        Train ``gamma`` (it stays at its initial value, ones, otherwise).
    beta_initializer, gamma_initializer : str or Initializer
        Defaults 'zeros' and 'ones'.
    in_channels : int, default 0
        Number of channels; inferred from the first batch when 0.

    Examples
    --------
    >>> norm = mx.gluon.nn.InstanceNorm()
    >>> norm.initialize()
    >>> norm(mx.nd.array([[[1, 2, 3]], [[4, 6, 8]]])).asnumpy().round(3)
    array([[[-1.225,  0.   ,  1.225]],
    <BLANKLINE>
           [[-1.225,  0.   ,  1.225]]], dtype=float32)
    """

    def __init__(self, axis=1, epsilon=1e-5, center=True, scale=False,
                 beta_initializer='zeros', gamma_initializer='ones', in_channels=0, **kwargs):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale},
                         (in_channels,), beta_initializer, gamma_initializer, **kwargs)
        self._axis = axis

    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon)
        # the operator normalizes with channels on axis 1: move them there and back
        x = F.swapaxes(x, dim1=1, dim2=self._axis)
        out = F.InstanceNorm(x, gamma, beta, name='fwd', eps=self._epsilon)
        return F.swapaxes(out, dim1=1, dim2=self._axis)


class LayerNorm(_AffineNorm):
    """Normalize each sample over one axis (the last by default):
    ``gamma * (x - mean) / sqrt(var + epsilon) + beta``, with ``gamma`` and ``beta`` of
    that axis's size.

    Parameters
    ----------
    axis : int, default -1
        The axis normalized over.
    epsilon : float, default 1e-5
        Added to the variance.
    center : bool, default True
        Train ``beta``.
    scale : bool, default True
        Train ``gamma``.
    beta_initializer, gamma_initializer : str or Initializer
        Defaults 'zeros' and 'ones'.
    in_channels : int, default 0
        Size of ``axis``; inferred from the first batch when 0.

    Examples
    --------
    >>> norm = mx.gluon.nn.LayerNorm()
    >>> norm.initialize()
    >>> norm(mx.nd.array([[1, 2, 3], [2, 4, 6]])).asnumpy().round(3)
    array([[-1.225,  0.   ,  1.225],
           [-1.225,  0.   ,  1.225]], dtype=float32)
    """

    def __init__(self, axis=-1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones', in_channels=0,
                 prefix=None, params=None):
        super().__init__({'eps': epsilon, 'axis': axis, 'center': center, 'scale': scale},
                         (in_channels,), beta_initializer, gamma_initializer, prefix=prefix,
                         params=params)
        self._axis = axis

    def hybrid_forward(self, F, data, gamma, beta):
        # MXNet 1.9.1 gives this node no name (unlike the other layers' 'fwd')
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)


class GroupNorm(_AffineNorm):
    """Split the channels (axis 1) into ``num_groups`` groups and normalize each
    sample's group over its channels and spatial axes.

    As in MXNet 1.9.1, ``gamma`` and ``beta`` hold one value per *group* (shape
    ``(num_groups,)``), not per channel.

    Parameters
    ----------
    num_groups : int, default 1
        Number of groups; must divide the number of channels.
    epsilon, center, scale, beta_initializer, gamma_initializer
        As for :class:`LayerNorm`.

    Examples
    --------
    >>> norm = mx.gluon.nn.GroupNorm(num_groups=2)
    >>> norm.initialize()
    >>> norm(mx.nd.ones((1, 4, 3))).shape
    (1, 4, 3)
    """

    def __init__(self, num_groups=1, epsilon=1e-5, center=True, scale=True,
                 beta_initializer='zeros', gamma_initializer='ones', prefix=None,
                 params=None):
        super().__init__({'eps': epsilon, 'num_groups': num_groups, 'center': center,
                          'scale': scale}, (num_groups,), beta_initializer, gamma_initializer,
                         prefix=prefix, params=params)
        self._num_groups = num_groups

    def hybrid_forward(self, F, data, gamma, beta):
        return F.GroupNorm(data, gamma=gamma, beta=beta, num_groups=self._num_groups,
                           eps=self._epsilon)

    def __repr__(self):
        return '{name}({content})'.format(name=self.__class__.__name__,
                                          content=_content(self._kwargs))
