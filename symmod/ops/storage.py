"""cast_storage: change an array's storage type. symmod stores every array densely, so
'default' copies and the sparse types are refused with a clear error."""
from ..base import MXNetError
from .common import copy_into
from .registry import Operator, Param, register, unify

__all__ = []


def _parse_stype(value):
    text = str(value).strip()
    if text not in ('default', 'row_sparse', 'csr'):
        raise ValueError("expected one of {'default', 'row_sparse', 'csr'}, found %r" % value)
    return text


@register
class cast_storage(Operator):
    """``data`` in storage type ``stype``; only 'default' (dense) exists in symmod."""
    name = 'cast_storage'
    params = (Param('stype', _parse_stype, doc="Output storage type ('default')."),)
    backward_uses_inputs = False
    backward_uses_outputs = False

    def check_params(self):
        if self.stype != 'default':
            raise MXNetError('cast_storage: sparse storage type %r is not supported by symmod '
                             "(dense arrays only: stype='default')" % self.stype)

    def infer_shape(self, in_shapes, out_shapes, aux_shapes):
        shape = unify(in_shapes[0], out_shapes[0])
        return [shape], [shape], []

    def forward(self, is_train, req, in_data, out_data, aux):
        copy_into(out_data[0], in_data[0], req[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        copy_into(in_grad[0], out_grad[0], req[0])
