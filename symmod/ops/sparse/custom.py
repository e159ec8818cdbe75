"""Storage rules of Custom operators: csr / row_sparse arrays handed to the user's code."""
from .base import StorageImpl, register_storage


@register_storage('Custom')
class _CustomStorage(StorageImpl):
    """Custom operators with csr / row_sparse arrays (MXNet's rules): the prop's
    ``infer_storage_type`` gives the outputs' storage types, and the user's forward and
    backward receive the sparse arrays themselves; gradients are written into buffers of
    the storage type they were bound or attached with."""

    def infer(self, op, in_stypes):
        outs = op.forward_stypes(in_stypes)
        if all(s == 'default' for s in list(in_stypes) + outs):
            return None
        return outs

    def forward(self, op, is_train, inputs, outputs):
        n_args = len(op.list_arguments())
        op.forward(is_train, ['write'] * len(outputs), inputs[:n_args], outputs,
                   inputs[n_args:])

    def backward(self, op, reqs, out_grads, inputs, outputs, in_grads):
        n_args = len(op.list_arguments())
        op.backward(reqs, out_grads, inputs[:n_args], outputs, in_grads, inputs[n_args:])
        return True
