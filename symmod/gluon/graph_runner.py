"""Run a Symbol imperatively: each node becomes one ``nd`` operator call.

This is what a hybridized HybridBlock and a SymbolBlock execute. Because every node
goes through ``ndarray.register.invoke``, calls made while recording are taped by
autograd and differentiated with the operators' own ``backward`` (the same code the
symbolic executor runs). The schedule (topological order, operator instances, where
each input comes from) is worked out once, when the runner is made.

Some nodes cannot size their outputs from their own inputs: gluon's recurrent layers
build their begin states as ``_zeros(shape=(1, 0, 8))``, whose 0 is the batch size the
graph implies. As MXNet's CachedOp does, the runner infers the shapes of the whole
graph, once per input signature (shapes and dtypes), and hands such nodes output
arrays of the inferred shapes.
"""
from ..base import MXNetError
from ..ndarray import NDArray, empty
from ..ndarray.register import invoke
from ..ops.registry import shape_is_known
from ..symbol.infer import infer_shapes, infer_types

_MAX_SIGNATURES = 64     # input signatures remembered (gluon's bucketing keeps few)

__all__ = ['GraphRunner']


class GraphRunner:
    """A Symbol prepared for imperative execution.

    Parameters
    ----------
    sym : Symbol
        The graph. Its inputs (``sym.list_inputs()``: arguments and auxiliary
        states) are given positionally to :meth:`__call__`.

    Examples
    --------
    >>> data = mx.sym.var('data')
    >>> runner = GraphRunner(mx.sym.relu(data))
    >>> runner(mx.nd.array([-1, 2]))[0].asnumpy()
    array([0., 2.], dtype=float32)
    """

    def __init__(self, sym):
        self._symbol = sym
        self.input_names = sym.list_inputs()
        self._signatures = {}   # input (shape, dtype)s -> {step: output (shape, dtype)s}
        self._hook = None       # (callback, monitor_all) of register_op_hook
        position = {name: i for i, name in enumerate(self.input_names)}
        slot = {}            # (id(node), output index) -> value slot
        self._steps = []     # (operator, input slots, output slots, node name)
        self._feeds = []     # (input position, slot)
        self._step_nodes = []
        for node in sym._nodes():
            if node.is_variable:
                slot[(id(node), 0)] = len(slot)
                self._feeds.append((position[node.name], slot[(id(node), 0)]))
                continue
            op = node.operator()
            # the parameters as the graph gives them (autograd.get_symbol writes these)
            op._given_attrs = tuple(sorted((k, v) for k, v in node.attrs.items()
                                           if not k.startswith('__')))
            ins = []
            for child, index in node.inputs:
                if (id(child), index) not in slot:
                    raise MXNetError('node %s uses hidden output %d of %s, which imperative '
                                     'execution does not expose' % (node.name, index,
                                                                    child.name))
                ins.append(slot[(id(child), index)])
            outs = []
            for index in range(node.num_visible_outputs()):
                slot[(id(node), index)] = len(slot)
                outs.append(slot[(id(node), index)])
            self._steps.append((op, ins, outs, node.name))
            self._step_nodes.append(node)
        self._num_slots = len(slot)
        self._outputs = []
        for node, index in sym._outputs:
            if (id(node), index) not in slot:
                raise MXNetError('output %d of %s is hidden and cannot be returned'
                                 % (index, node.name))
            self._outputs.append(slot[(id(node), index)])

    def register_op_hook(self, callback, monitor_all=False):
        """Call ``callback(name, op_name, array)`` (names as bytes, as MXNet's C API
        hands them) with each node's outputs after it runs, and its inputs too with
        ``monitor_all``; None removes the hook."""
        self._hook = None if callback is None else (callback, monitor_all)

    def _report(self, node, op, inputs, outputs):
        callback, monitor_all = self._hook
        op_name = op.name.encode()
        if monitor_all:
            for name, value in zip(op.monitor_input_names(), inputs):
                callback(('%s_%s' % (node.name, name)).encode(), op_name, value)
        for i, value in enumerate(outputs):
            callback(node.output_name(i).encode(), op_name, value)

    def __call__(self, *inputs):
        """Run the graph on NDArrays given in the order of ``input_names``.

        Returns
        -------
        list of NDArray
            The graph's outputs.
        """
        if len(inputs) != len(self.input_names):
            raise MXNetError('graph expects %d inputs (%s), found %d'
                             % (len(self.input_names), ', '.join(self.input_names),
                                len(inputs)))
        sized = self._sized_outputs(inputs)
        ctx = inputs[0].context if inputs else None
        values = [None] * self._num_slots
        for position, index in self._feeds:
            values[index] = inputs[position]
        for step, (op, ins, outs, name) in enumerate(self._steps):
            out = None
            if step in sized:
                out = [empty(shape, ctx=ctx, dtype=dtype) for shape, dtype in sized[step]]
            try:
                result = invoke(op, [values[i] for i in ins], out=out)
            except MXNetError as err:
                raise MXNetError('%s (in node %s)' % (err, name)) from None
            if isinstance(result, NDArray):
                result = [result]
            for index, value in zip(outs, result):
                values[index] = value
            if self._hook is not None:
                self._report(self._step_nodes[step], op, [values[i] for i in ins], result)
        return [values[i] for i in self._outputs]

    # ---- shapes the graph implies ----------------------------------------------------
    def _sized_outputs(self, inputs):
        """``{step: [(shape, dtype) per output]}`` for the nodes whose outputs only the
        whole graph determines; inferred on the first call with these input shapes and
        dtypes, then looked up."""
        signature = tuple((tuple(x.shape), x.dtype) for x in inputs)
        sized = self._signatures.get(signature)
        if sized is None:
            if len(self._signatures) >= _MAX_SIGNATURES:
                self._signatures.clear()
            sized = self._signatures[signature] = self._infer_sizes(signature)
        return sized

    def _infer_sizes(self, signature):
        names = self.input_names
        nodes = self._symbol._nodes()
        # inputs the graph cannot take fail here, as they do when MXNet builds its CachedOp
        shapes = infer_shapes(nodes, {n: s for n, (s, _) in zip(names, signature)})
        dtypes = infer_types(nodes, {n: t for n, (_, t) in zip(names, signature)})
        sized = {}
        for step, node in enumerate(self._step_nodes):
            op = node.operator()
            n_args, n_out = node.num_arguments(), node.num_outputs()
            in_shapes = [shapes.get((id(c), i)) for c, i in node.inputs]
            if not all(shape_is_known(s) for s in in_shapes):
                continue
            own = op.infer_shape(in_shapes[:n_args], [None] * n_out, in_shapes[n_args:])[1]
            if all(shape_is_known(s) for s in own):
                continue        # the node sizes its outputs itself
            graph = [(shapes.get((id(node), i)), dtypes.get((id(node), i)))
                     for i in range(n_out)]
            if all(shape_is_known(s) and t is not None for s, t in graph):
                sized[step] = graph
        return sized
