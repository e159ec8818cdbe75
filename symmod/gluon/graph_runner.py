"""Run a Symbol imperatively: each node becomes one ``nd`` operator call.

This is what a hybridized HybridBlock and a SymbolBlock execute. Because every node
goes through ``ndarray.register.invoke``, calls made while recording are taped by
autograd and differentiated with the operators' own ``backward`` (the same code the
symbolic executor runs). The schedule (topological order, operator instances, where
each input comes from) is worked out once, when the runner is made.
"""
from ..base import MXNetError
from ..ndarray import NDArray
from ..ndarray.register import invoke

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
        position = {name: i for i, name in enumerate(self.input_names)}
        slot = {}            # (id(node), output index) -> value slot
        self._steps = []     # (operator, input slots, output slots, node name)
        self._feeds = []     # (input position, slot)
        for node in sym._nodes():
            if node.is_variable:
                slot[(id(node), 0)] = len(slot)
                self._feeds.append((position[node.name], slot[(id(node), 0)]))
                continue
            op = node.operator()
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
        self._num_slots = len(slot)
        self._outputs = []
        for node, index in sym._outputs:
            if (id(node), index) not in slot:
                raise MXNetError('output %d of %s is hidden and cannot be returned'
                                 % (index, node.name))
            self._outputs.append(slot[(id(node), index)])

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
        values = [None] * self._num_slots
        for position, index in self._feeds:
            values[index] = inputs[position]
        for op, ins, outs, name in self._steps:
            try:
                result = invoke(op, [values[i] for i in ins])
            except MXNetError as err:
                raise MXNetError('%s (in node %s)' % (err, name)) from None
            if isinstance(result, NDArray):
                result = [result]
            for index, value in zip(outs, result):
                values[index] = value
        return [values[i] for i in self._outputs]
