"""The ``_CachedOp`` operator: a whole graph as one node.

MXNet records a hybridized block called under ``autograd.record()`` as one ``_CachedOp``
node when its graph has more operators than ``inline_limit``; ``autograd.get_symbol``
then shows that node, and the symbol it returns still binds and runs. symmod's node
holds its graph as symbol JSON (the ``subgraph`` parameter), so, unlike MXNet's, it also
survives ``tojson`` / ``load_json``.

Its inputs are the graph's arguments, then its auxiliary states (symbols given
positionally at composition follow the graph's ``list_inputs`` order, as MXNet's do); its
outputs are the graph's outputs. Each node (and each imperative call) binds the graph once to an inner
executor at state creation; forward runs it, backward runs the inner executor's
backward on the forward pass it just made; both write the auxiliary states back.
"""
from ..base import MXNetError
from .registry import Operator, Param, assign, register

__all__ = []


def _load(text):
    from ..symbol.symbol import load_json
    return load_json(text)


@register
class CachedOp(Operator):
    """A graph run as one operator (MXNet's ``_CachedOp``)."""
    name = '_CachedOp'
    params = (Param('subgraph', str, doc='The graph, as symbol JSON.'),)
    stateful = True

    def check_params(self):
        self.graph = _load(self.subgraph)
        self._exe = None

    def list_arguments(self):
        return self.graph.list_arguments()

    def list_auxiliary_states(self):
        return self.graph.list_auxiliary_states()

    def list_outputs(self):
        return self.graph.list_outputs()

    def positional_inputs(self):
        # MXNet's rule: positional symbols are the graph's inputs in list_inputs() order,
        # where arguments and auxiliary states may interleave (conv weight, BatchNorm
        # gamma, beta, moving_mean, ..., next conv weight)
        return self.graph.list_inputs()

    def _infer(self, method, in_attrs, aux_attrs):
        names = self.list_arguments() + self.list_auxiliary_states()
        known = {n: a for n, a in zip(names, list(in_attrs) + list(aux_attrs)) if a is not None}
        args, outs, aux = getattr(self.graph, method)(**known)
        if args is None:
            raise MXNetError('_CachedOp: cannot infer the graph from %s' % known)
        return list(args), list(outs), list(aux)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        return self._infer('infer_shape_partial', in_shapes, aux_shapes)

    def infer_type(self, in_types, out_types, aux_types):
        return self._infer('infer_type_partial', in_types, aux_types)

    def create_state(self, ctx, in_shapes, in_dtypes):
        from ..context import cpu
        from ..ndarray.ndarray import zeros
        n_args = len(self.list_arguments())
        # the arrays the operator receives are host (numpy) storage: run the graph on cpu
        arrays = [zeros(s, ctx=cpu(), dtype=d) for s, d in zip(in_shapes, in_dtypes)]
        args = dict(zip(self.list_arguments(), arrays[:n_args]))
        aux = dict(zip(self.list_auxiliary_states(), arrays[n_args:]))
        grads = {n: zeros(a.shape, ctx=cpu(), dtype=a.dtype) for n, a in args.items()}
        self._exe = self.graph.bind(cpu(), args=args, args_grad=grads, grad_req='write',
                                    aux_states=aux)

    def _state(self, in_data, aux):
        if self._exe is None:       # called without a bind: make it from the arrays
            arrays = list(in_data) + list(aux)
            self.create_state(None, [a.shape for a in arrays], [a.dtype for a in arrays])
        return self._exe

    def forward(self, is_train, req, in_data, out_data, aux):
        exe = self._state(in_data, aux)
        for bound, value in zip(exe.arg_arrays + exe.aux_arrays, list(in_data) + list(aux)):
            bound._data[...] = value
        outputs = exe.forward(is_train=is_train)
        for dst, r, y in zip(out_data, req, outputs):
            assign(dst, r, y._data)
        self._write_aux(exe, aux)

    @staticmethod
    def _write_aux(exe, aux):
        # the running statistics the graph updated (BatchNorm: in its backward, as MXNet)
        for dst, bound in zip(aux, exe.aux_arrays):
            dst[...] = bound._data

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        from ..ndarray import NDArray
        from ..context import cpu
        exe = self._state(in_data, aux)
        exe.backward([NDArray(g, cpu()) for g in out_grad])
        for dst, r, grad in zip(in_grad, req, exe.grad_arrays):
            assign(dst, r, grad._data)
        self._write_aux(exe, aux)
