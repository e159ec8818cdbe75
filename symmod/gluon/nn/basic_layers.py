"""Basic layers: containers, Dense, Dropout, BatchNorm, Embedding, Flatten and Lambda
wrappers (the other normalization layers are in ``norm_layers.py``)."""
import warnings

import numpy as np

from ...base import MXNetError
from ... import ndarray as nd
from ... import symbol as sym
from ..block import Block
from ..hybrid_block import HybridBlock
from ..utils import _indent
from .activations import Activation

__all__ = ['Sequential', 'HybridSequential', 'Dense', 'Dropout', 'BatchNorm', 'Embedding',
           'Flatten', 'Lambda', 'HybridLambda']


def _activation_block(activation):
    """The ``Activation`` block a layer applies to its output (named ``<act>_`` as in
    MXNet), or None."""
    if activation is None:
        return None
    return Activation(activation, prefix=activation + '_')


class _Stack:
    """What Sequential and HybridSequential share: children added in order, indexing
    (a slice gives a new container of the same type), ``len`` and the repr."""

    def add(self, *blocks):
        """Append blocks to the stack."""
        for block in blocks:
            self.register_child(block)

    def __repr__(self):
        modstr = '\n'.join(['  ({key}): {block}'.format(key=key, block=_indent(repr(child), 2))
                            for key, child in self._children.items()])
        return '{name}(\n{modstr}\n)'.format(name=self.__class__.__name__, modstr=modstr)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if not isinstance(layers, list):
            return layers
        net = type(self)(prefix=self._prefix)
        with net.name_scope():
            net.add(*layers)
        return net

    def __len__(self):
        return len(self._children)


class Sequential(_Stack, Block):
    """Stack blocks: the output of each is the input of the next.

    Examples
    --------
    >>> net = mx.gluon.nn.Sequential()
    >>> with net.name_scope():
    ...     net.add(mx.gluon.nn.Dense(10, activation='relu'))
    ...     net.add(mx.gluon.nn.Dense(20))
    """

    def forward(self, x):
        for block in self._children.values():
            x = block(x)
        return x

    def hybridize(self, active=True, **kwargs):
        """Hybridize the children (warns when all are HybridBlocks: use HybridSequential)."""
        if self._children and all(isinstance(c, HybridBlock) for c in self._children.values()):
            warnings.warn("All children of this Sequential layer '%s' are HybridBlocks. "
                          'Consider using HybridSequential for the best performance.'
                          % self.prefix, stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_Stack, HybridBlock):
    """Stack HybridBlocks (the whole stack can be hybridized and exported).

    Examples
    --------
    >>> net = mx.gluon.nn.HybridSequential()
    >>> with net.name_scope():
    ...     net.add(mx.gluon.nn.Dense(10, activation='relu'))
    ...     net.add(mx.gluon.nn.Dense(20))
    >>> net.hybridize()
    """

    def hybrid_forward(self, F, x):
        for block in self._children.values():
            x = block(x)
        return x


class Dense(HybridBlock):
    """A fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    Parameters
    ----------
    units : int
        Output size.
    activation : str, optional
        Activation applied to the output (see :class:`Activation`); none by default.
    use_bias : bool, default True
        Whether to add a bias.
    flatten : bool, default True
        Collapse all input axes but the first (else apply to the last axis).
    dtype : str or numpy dtype, default 'float32'
        Parameter dtype.
    weight_initializer : str or Initializer, optional
        Initializer of the weight (the global one when None).
    bias_initializer : str or Initializer, default 'zeros'
        Initializer of the bias.
    in_units : int, default 0
        Input size; inferred at the first call when 0 (deferred initialization).

    Examples
    --------
    >>> dense = mx.gluon.nn.Dense(3, in_units=4)
    >>> dense.initialize()
    >>> dense(mx.nd.ones((2, 4))).shape
    (2, 3)
    """

    def __init__(self, units, activation=None, use_bias=True, flatten=True, dtype='float32',
                 weight_initializer=None, bias_initializer='zeros', in_units=0, **kwargs):
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get('weight', shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get('bias', shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            self.act = _activation_block(activation)

    def hybrid_forward(self, F, x, weight, bias=None):
        if bias is None:
            out = F.FullyConnected(x, weight, no_bias=True, num_hidden=self._units,
                                   flatten=self._flatten, name='fwd')
        else:
            out = F.FullyConnected(x, weight, bias, no_bias=False, num_hidden=self._units,
                                   flatten=self._flatten, name='fwd')
        if self.act is not None:
            out = self.act(out)
        return out

    def __repr__(self):
        shape = self.weight.shape
        return '{name}({layout}, {act})'.format(
            name=self.__class__.__name__, act=self.act if self.act else 'linear',
            layout='{0} -> {1}'.format(shape[1] if shape[1] else None, shape[0]))


class Dropout(HybridBlock):
    """Randomly zero a fraction ``rate`` of the inputs in training mode (scaling the rest
    by ``1 / (1 - rate)``); identity in inference mode.

    Parameters
    ----------
    rate : float
        Fraction of inputs to drop, in [0, 1).
    axes : tuple of int, default ()
        Axes along which one mask is shared.
    """

    def __init__(self, rate, axes=(), **kwargs):
        super().__init__(**kwargs)
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name='fwd', cudnn_off=False)
        return F.identity(x)

    def __repr__(self):
        return '{name}(p = {rate}, axes={axes})'.format(name=self.__class__.__name__,
                                                        rate=self._rate, axes=self._axes)


class BatchNorm(HybridBlock):
    """Batch normalization: normalize each channel by the batch statistics in training
    mode (updating running averages) and by the running averages in inference mode.

    Parameters
    ----------
    axis : int, default 1
        The channel axis.
    momentum : float, default 0.9
        Momentum of the running averages.
    epsilon : float, default 1e-5
        Added to the variance.
    center : bool, default True
        Add the learned offset ``beta``.
    scale : bool, default True
        Multiply by the learned ``gamma``.
    use_global_stats : bool, default False
        Always use the running averages.
    beta_initializer, gamma_initializer : str or Initializer
        Defaults 'zeros' and 'ones'.
    running_mean_initializer, running_variance_initializer : str or Initializer
        Defaults 'zeros' and 'ones'.
    in_channels : int, default 0
        Number of channels; inferred at the first call when 0.
    """

    def __init__(self, axis=1, momentum=0.9, epsilon=1e-5, center=True, scale=True,
                 use_global_stats=False, beta_initializer='zeros', gamma_initializer='ones',
                 running_mean_initializer='zeros', running_variance_initializer='ones',
                 in_channels=0, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'axis': axis, 'eps': epsilon, 'momentum': momentum,
                        'fix_gamma': not scale, 'use_global_stats': use_global_stats}
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get('gamma', grad_req='write' if scale else 'null',
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get('beta', grad_req='write' if center else 'null',
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get('running_mean', grad_req='null',
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get('running_var', grad_req='null',
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)

    def cast(self, dtype):
        if np.dtype(dtype).name == 'float16':
            dtype = 'float32'
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name='fwd',
                           **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ', '.join(['='.join([k, repr(v)]) for k, v in self._kwargs.items()])
        return '{name}({content}, in_channels={ch})'.format(
            name=self.__class__.__name__, content=content,
            ch=in_channels if in_channels else None)


class Embedding(HybridBlock):
    """Map integer indices to rows of a learnt ``(input_dim, output_dim)`` table.

    Input of any shape ``S`` holding indices in ``[0, input_dim)`` (out-of-range
    indices are clipped, as MXNet does) gives output ``S + (output_dim,)``.

    Parameters
    ----------
    input_dim : int
        Size of the vocabulary (number of rows).
    output_dim : int
        Size of each embedding vector.
    dtype : str or numpy dtype, default 'float32'
        Dtype of the table and the output.
    weight_initializer : str or Initializer, optional
        Initializer of the table (the global one when None).
    sparse_grad : bool, default False
        Make the weight's gradient row_sparse (the rows a batch looks up): the Trainer's
        optimizer then updates only those rows (lazy updates).

    Examples
    --------
    >>> emb = mx.gluon.nn.Embedding(10, 3)
    >>> emb.initialize()
    >>> emb(mx.nd.array([[1, 4], [0, 9]])).shape
    (2, 2, 3)
    """

    def __init__(self, input_dim, output_dim, dtype='float32', weight_initializer=None,
                 sparse_grad=False, **kwargs):
        super().__init__(**kwargs)
        self._kwargs = {'input_dim': input_dim, 'output_dim': output_dim, 'dtype': dtype,
                        'sparse_grad': sparse_grad}
        self.weight = self.params.get('weight', shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True,
                                      grad_stype='row_sparse' if sparse_grad else 'default')

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name='fwd', **self._kwargs)

    def __repr__(self):
        return '{block_name}({input_dim} -> {output_dim}, {dtype})'.format(
            block_name=self.__class__.__name__, **self._kwargs)


class Flatten(HybridBlock):
    """Collapse all axes but the first: ``(N, x1, ..., xn)`` to ``(N, x1 * ... * xn)``."""

    def hybrid_forward(self, F, x):
        return F.flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Lambda(Block):
    """Wrap a function (or the name of an ``mx.nd`` function) as a Block.

    Examples
    --------
    >>> block = mx.gluon.nn.Lambda('tanh')
    >>> block(mx.nd.zeros((2,))).asnumpy()
    array([0., 0.], dtype=float32)
    """

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function), 'Function name %s is not found in ndarray.' % function
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise ValueError('Unrecognized function in lambda: {} of type {}'
                             .format(function, type(function)))

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return '{name}({function})'.format(name=self.__class__.__name__,
                                           function=self._func_impl.__name__)


class HybridLambda(HybridBlock):
    """Wrap ``function(F, x, *args)`` (or the name of a function in both ``mx.nd`` and
    ``mx.sym``) as a HybridBlock."""

    def __init__(self, function, prefix=None):
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            assert hasattr(nd, function) and hasattr(sym, function), \
                'Function name %s is not found in symbol/ndarray.' % function
            funcs = {sym: getattr(sym, function), nd: getattr(nd, function)}
            self._func = lambda F, *args: funcs[F](*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise ValueError('Unrecognized function in lambda: {} of type {}'
                             .format(function, type(function)))

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return '{name}({function})'.format(name=self.__class__.__name__,
                                           function=self._func_name)
