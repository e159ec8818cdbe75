"""Storage rules of neural-network operators on sparse inputs (computed densely)."""
from ...base import MXNetError
from .base import StorageImpl, register_storage


@register_storage('BatchNorm')
class _BatchNorm(StorageImpl):
    """BatchNorm falls back to dense storage, except that MXNet refuses ``fix_gamma``
    with sparse inputs."""

    def infer(self, op, in_stypes):
        if op.fix_gamma and any(s != 'default' for s in in_stypes):
            raise MXNetError('fix_gamma=True is not supported for sparse ndarrays. Tracked at '
                             '#11647')
        return None
