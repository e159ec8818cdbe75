"""SymbolBlock: a gluon block made from a Symbol, e.g. a Module checkpoint.

The graph's non-input variables become Parameters (auxiliary states with
``grad_req='null'``); calling the block runs the graph node by node with the ``nd``
operators, so it can be trained with ``autograd`` and ``Trainer``.
"""
import copy

import numpy as np

from ..base import MXNetError
from .. import symbol
from ..ndarray import NDArray
from ..symbol import Symbol
from .block import _flatten, _regroup
from .hybrid_block import HybridBlock
from .parameter_dict import ParameterDict

__all__ = ['SymbolBlock']


class SymbolBlock(HybridBlock):
    """A block computing the outputs of a Symbol from chosen input variables.

    Parameters
    ----------
    outputs : Symbol or list of Symbol
        The outputs.
    inputs : Symbol or list of Symbol
        The variables fed at call time, in call order; every other variable of the
        graph becomes a Parameter.
    params : ParameterDict, optional
        Parameters to share (e.g. another block's ``collect_params()``).

    Examples
    --------
    >>> data = mx.sym.var('data')
    >>> fc = mx.sym.FullyConnected(data, num_hidden=4, name='fc')
    >>> net = mx.gluon.SymbolBlock(fc, data)
    >>> net.initialize()
    >>> net(mx.nd.ones((2, 3))).shape
    (2, 4)
    """

    @staticmethod
    def imports(symbol_file, input_names, param_file=None, ctx=None, allow_missing=False,
                ignore_extra=False):
        """Load a block from ``prefix-symbol.json`` (and ``prefix-%04d.params``).

        Reads what ``HybridBlock.export`` or ``Module.save_checkpoint`` (symmod's or
        MXNet's) wrote.

        Parameters
        ----------
        symbol_file : str
            The symbol JSON file.
        input_names : str or list of str
            The variables to feed at call time (e.g. ``['data']``; a checkpoint with a
            loss head also has a label, ``['data', 'softmax_label']``).
        param_file : str, optional
            The parameters file; Parameters take its dtypes.
        ctx : Context or list of Context, optional
            Where to load the Parameters.
        allow_missing : bool, default False
            Allow Parameters that the file lacks.
        ignore_extra : bool, default False
            Ignore arrays of the file that match no Parameter.

        Returns
        -------
        SymbolBlock

        Examples
        --------
        >>> net = mx.gluon.SymbolBlock.imports('mlp-symbol.json', ['data', 'softmax_label'],
        ...                                    'mlp-0003.params')
        """
        sym = symbol.load(symbol_file)
        if isinstance(input_names, str):
            input_names = [input_names]
        if param_file is None:
            inputs = [symbol.var(name, dtype=np.float32) for name in input_names]
        else:
            inputs = [symbol.var(name) for name in input_names]
        ret = SymbolBlock(sym, inputs)
        if param_file is not None:
            ret.collect_params().load(param_file, ctx, allow_missing, ignore_extra,
                                      cast_dtype=True, dtype_source='saved')
        return ret

    def __repr__(self):
        graph = self._cached_graph[1]
        return '{name}(\n{block} : {n_in} -> {n_out}\n)'.format(
            name=self.__class__.__name__, block=graph, n_in=len(self._cached_graph[0]),
            n_out=len(graph.list_outputs()))

    def __init__(self, outputs, inputs, params=None):
        super().__init__(prefix=None, params=None)
        self._prefix = ''
        self._params = ParameterDict('', params)
        if isinstance(inputs, Symbol) and len(inputs.list_outputs()) == 1:
            inputs = [inputs]
        if isinstance(outputs, (list, tuple)) and len(outputs) == 1:
            outputs = outputs[0]
        syms, self._in_format = _flatten(inputs, 'input')
        out, self._out_format = _flatten(outputs, 'output')
        input_names = set()
        for sym in syms:
            assert len(sym.get_internals().list_outputs()) == 1, \
                'Input symbols must be variable, but %s is an output of operators' % str(sym)
            input_names.add(sym.name)
        for sym in out:
            for node in sym.get_internals():
                assert node.attr('__storage_type__') != '1', \
                    "SymbolBlock doesn't support Parameter '%s' because its storage type is " \
                    "'row_sparse'." % node.name      # '1': MXNet's id of row_sparse
        out = symbol.Group(out) if len(out) > 1 else out[0]
        arg_params = out.list_arguments()
        aux_params = out.list_auxiliary_states()
        arg_types, aux_types = _infer_param_types(syms, out, arg_params, aux_params)
        for name, dtype in zip(arg_params, arg_types):
            if name not in input_names:
                self.params.get(name, allow_deferred_init=True, dtype=dtype)
        for name, dtype in zip(aux_params, aux_types):
            if name not in input_names:
                self.params.get(name, grad_req='null', allow_deferred_init=True, dtype=dtype)
        self._cached_graph = syms, out
        prefix_len = len(_common_prefix(list(self._params.keys())))
        self._reg_params = {key[prefix_len:]: val for key, val in self._params.items()}

    def forward(self, x, *args):
        if isinstance(x, NDArray):
            with x.context:
                return self._call_cached_op(x, *args)
        assert isinstance(x, Symbol), \
            'HybridBlock requires the first argument to forward be either Symbol or ' \
            'NDArray, but got %s' % type(x)
        flat, in_fmt = _flatten([x] + list(args), 'input')
        assert in_fmt == self._in_format, 'Invalid input format'
        ret = copy.copy(self._cached_graph[1])
        ret._compose(**{k.name: v for k, v in zip(self._cached_graph[0], flat)})
        return _regroup(list(ret), self._out_format)

    def _clear_cached_op(self):
        graph = self._cached_graph
        super()._clear_cached_op()
        self._cached_graph = graph

    def cast(self, dtype):
        """Cast the Parameters; BatchNorm statistics and scales stay float32 for float16."""
        self._clear_cached_op()
        super().cast(dtype)
        if np.dtype(dtype).name != 'float16':
            return
        names = self._cached_graph[1].get_internals().list_inputs()
        for node in names:
            for suffix, stats in (('running_var', ('running_mean', 'gamma', 'beta')),
                                  ('moving_var', ('moving_mean', 'gamma', 'beta'))):
                if node.endswith(suffix):
                    prefix = node[:-len(suffix)]
                    siblings = [prefix + s for s in stats]
                    if all(s in names for s in siblings):
                        self.params.get(node).cast('float32')
                        for sib in siblings:
                            self.params.get(sib).cast('float32')

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise MXNetError('SymbolBlock computes its Symbol; it has no hybrid_forward')

    def reset_ctx(self, ctx):
        """Move all Parameters to ``ctx``."""
        for param in self.collect_params().values():
            param.reset_ctx(ctx)


def _common_prefix(names):
    """The longest common prefix of a list of names."""
    if not names:
        return ''
    prefix = names[0]
    for name in names:
        i = 0
        while i < len(prefix) and i < len(name) and prefix[i] == name[i]:
            i += 1
        prefix = prefix[:i]
    return prefix


def _infer_param_types(in_params, out_params, arg_params, aux_params,
                       default_dtype=np.float32):
    """dtypes of the arguments and auxiliary states, from the inputs' dtypes when known
    (float32 where they cannot be inferred)."""
    arg_types = aux_types = None
    input_types = []
    for param in in_params:
        inferred = param.infer_type()[0]
        if not inferred:
            input_types = None
            break
        input_types.append(inferred[0])
    if input_types is not None:
        names = [p.name for p in in_params]
        try:
            arg_types, _, aux_types = out_params.infer_type(**dict(zip(names, input_types)))
        except MXNetError:
            arg_types = aux_types = None
    if arg_types is None or len(arg_types) != len(arg_params):
        arg_types = [default_dtype] * len(arg_params)
    if aux_types is None or len(aux_types) != len(aux_params):
        aux_types = [default_dtype] * len(aux_params)
    return arg_types, aux_types
