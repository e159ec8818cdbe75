"""Checkpoints of models built from RNN cells: the files hold per-gate (unpacked)
weights, as MXNet's rnn helpers write them; in memory the cells use packed ones."""
import warnings

from ..model import save_checkpoint, load_checkpoint
from .base_cell import BaseRNNCell

__all__ = ['rnn_unroll', 'save_rnn_checkpoint', 'load_rnn_checkpoint', 'do_rnn_checkpoint']


def _as_cell_list(cells):
    return [cells] if isinstance(cells, BaseRNNCell) else cells


def rnn_unroll(cell, length, inputs=None, begin_state=None, input_prefix='', layout='NTC'):
    """Deprecated: call ``cell.unroll(length, inputs, begin_state, layout)``.

    ``input_prefix`` is ignored (MXNet 1.9.1 forwarded it to ``unroll``, which
    does not accept it).
    """
    warnings.warn('rnn_unroll is deprecated. Please call cell.unroll directly.')
    return cell.unroll(length=length, inputs=inputs, begin_state=begin_state, layout=layout)


def save_rnn_checkpoint(cells, prefix, epoch, symbol, arg_params, aux_params):
    """Save a checkpoint with the cells' weights unpacked per gate.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells the symbol was built from.
    prefix : str
        Path prefix: writes ``prefix-symbol.json`` and ``prefix-%04d.params``.
    epoch : int
        Epoch number in the parameter file's name.
    symbol : Symbol
        The network.
    arg_params : dict of str to NDArray
        Weights (with packed cell weights, as a Module holds them).
    aux_params : dict of str to NDArray
        Auxiliary states.

    Examples
    --------
    >>> mx.rnn.save_rnn_checkpoint(stack, 'lm', 3, net, arg_params, aux_params)
    """
    for cell in _as_cell_list(cells):
        arg_params = cell.unpack_weights(arg_params)
    save_checkpoint(prefix, epoch, symbol, arg_params, aux_params)


def load_rnn_checkpoint(cells, prefix, epoch):
    """Load a checkpoint written by :func:`save_rnn_checkpoint`, packing the cells'
    weights again.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells the symbol was built from.
    prefix : str
        Path prefix of ``prefix-symbol.json`` and ``prefix-%04d.params``.
    epoch : int
        Epoch number of the parameter file.

    Returns
    -------
    symbol : Symbol
    arg_params : dict of str to NDArray
        Weights with packed cell weights, ready for ``Module.set_params``.
    aux_params : dict of str to NDArray
    """
    sym, arg_params, aux_params = load_checkpoint(prefix, epoch)
    for cell in _as_cell_list(cells):
        arg_params = cell.pack_weights(arg_params)
    return sym, arg_params, aux_params


def do_rnn_checkpoint(cells, prefix, period=1):
    """An epoch-end callback that saves an RNN checkpoint every ``period`` epochs.

    Parameters
    ----------
    cells : BaseRNNCell or list of BaseRNNCell
        The cells the symbol was built from.
    prefix : str
        Path prefix of the checkpoint files.
    period : int, default 1
        Save after every ``period``-th epoch (epochs counted from 1).

    Returns
    -------
    callable
        ``callback(iter_no, sym, arg, aux)`` for ``Module.fit(epoch_end_callback=...)``.

    Examples
    --------
    >>> model.fit(train_iter, num_epoch=5,
    ...           epoch_end_callback=mx.rnn.do_rnn_checkpoint(stack, 'lm', period=1))
    """
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            save_rnn_checkpoint(cells, prefix, iter_no + 1, sym, arg, aux)
    return _callback
