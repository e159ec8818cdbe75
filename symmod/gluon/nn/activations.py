"""Activation layers: Activation (by name), LeakyReLU, PReLU, ELU, SELU, GELU, Swish.

All but Swish are one call of the ``Activation`` or ``LeakyReLU`` operator; the
layers without a ``__repr__`` of their own print as an empty Block, as in MXNet.
"""
from ... import initializer
from ..hybrid_block import HybridBlock

__all__ = ['Activation', 'LeakyReLU', 'PReLU', 'ELU', 'SELU', 'Swish', 'GELU']


class Activation(HybridBlock):
    """Apply an activation function elementwise.

    Parameters
    ----------
    activation : str
        ``'relu'``, ``'sigmoid'``, ``'tanh'``, ``'softrelu'`` or ``'softsign'`` (see
        ``mx.nd.Activation``).

    Examples
    --------
    >>> act = mx.gluon.nn.Activation('relu')
    >>> act(mx.nd.array([-1, 2])).asnumpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, activation, **kwargs):
        self._act_type = activation
        super().__init__(**kwargs)

    def _alias(self):
        return self._act_type

    def hybrid_forward(self, F, x):
        return F.Activation(x, act_type=self._act_type, name='fwd')

    def __repr__(self):
        return '{name}({act})'.format(name=self.__class__.__name__, act=self._act_type)


class LeakyReLU(HybridBlock):
    """Leaky ReLU: ``x`` for ``x >= 0``, ``alpha * x`` otherwise.

    Parameters
    ----------
    alpha : float
        Slope for negative inputs (>= 0).
    """

    def __init__(self, alpha, **kwargs):
        assert alpha >= 0, 'Slope coefficient for LeakyReLU must be no less than 0.'
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='leaky', slope=self._alpha, name='fwd')

    def __repr__(self):
        return '{name}({alpha})'.format(name=self.__class__.__name__, alpha=self._alpha)


class PReLU(HybridBlock):
    """Parametric leaky ReLU: ``x`` for ``x >= 0``, ``alpha * x`` otherwise, with a learnt
    ``alpha`` (one value shared by all channels, or one per channel of axis 1).

    Parameters
    ----------
    alpha_initializer : Initializer, default Constant(0.25)
        Initializer of ``alpha``.
    in_channels : int, default 1
        Number of ``alpha`` values: 1, or the size of the input's axis 1.

    Examples
    --------
    >>> prelu = mx.gluon.nn.PReLU()
    >>> prelu.initialize()
    >>> prelu(mx.nd.array([-4, 2])).asnumpy()
    array([-1.,  2.], dtype=float32)
    """

    def __init__(self, alpha_initializer=initializer.Constant(0.25), in_channels=1, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.alpha = self.params.get('alpha', shape=(in_channels,), init=alpha_initializer)

    def hybrid_forward(self, F, x, alpha):
        return F.LeakyReLU(x, gamma=alpha, act_type='prelu', name='fwd')


class ELU(HybridBlock):
    """Exponential linear unit: ``x`` for ``x > 0``, ``alpha * (exp(x) - 1)`` otherwise.

    Parameters
    ----------
    alpha : float, default 1.0
        Scale of the negative part.
    """

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self._alpha = alpha

    def hybrid_forward(self, F, x):
        # unnamed in MXNet 1.9.1 too
        return F.LeakyReLU(x, act_type='elu', slope=self._alpha)


class SELU(HybridBlock):
    """Scaled ELU with the fixed constants of Klambauer et al. (2017):
    ``1.0507 * (x > 0 ? x : 1.6733 * (exp(x) - 1))``."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='selu', name='fwd')


class GELU(HybridBlock):
    """Gaussian error linear unit: ``0.5 * x * (1 + erf(x / sqrt(2)))``."""

    def hybrid_forward(self, F, x):
        return F.LeakyReLU(x, act_type='gelu', name='fwd')


class Swish(HybridBlock):
    """Swish: ``x * sigmoid(beta * x)``.

    Parameters
    ----------
    beta : float, default 1.0
        Scale inside the sigmoid.

    Examples
    --------
    >>> mx.gluon.nn.Swish()(mx.nd.array([0, 2])).asnumpy().round(4)
    array([0.    , 1.7616], dtype=float32)
    """

    def __init__(self, beta=1.0, **kwargs):
        super().__init__(**kwargs)
        self._beta = beta

    def hybrid_forward(self, F, x):
        return x * F.sigmoid(self._beta * x, name='fwd')
