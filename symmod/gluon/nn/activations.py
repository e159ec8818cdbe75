"""Activation layers."""
from ..hybrid_block import HybridBlock

__all__ = ['Activation', 'LeakyReLU']


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
