"""RNNParams: the shared store of weight variables that lets cells share parameters."""
from .. import symbol

__all__ = ['RNNParams']


class RNNParams(object):
    """A container of weight variables, created on first request and reused after.

    Two cells built on the same container use the same weight variables (tied
    weights); a container is also how :class:`SequentialRNNCell` and
    :class:`BidirectionalCell` collect the parameters of the cells they hold.

    Parameters
    ----------
    prefix : str, default ''
        Prepended to the name of every variable this container creates.

    Examples
    --------
    >>> params = mx.rnn.RNNParams('lstm_')
    >>> w = params.get('i2h_weight')
    >>> w.name
    'lstm_i2h_weight'
    >>> params.get('i2h_weight') is w
    True
    """

    def __init__(self, prefix=''):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, created (with ``kwargs``) if it is new.

        Parameters
        ----------
        name : str
            Variable name, without the container's prefix.
        **kwargs
            Passed to :func:`symmod.symbol.Variable` when the variable is created
            (``init``, ``shape``, ``lr_mult`` ...); ignored when it already exists.

        Returns
        -------
        Symbol
            The variable.
        """
        full_name = self._prefix + name
        if full_name not in self._params:
            self._params[full_name] = symbol.Variable(full_name, **kwargs)
        return self._params[full_name]
