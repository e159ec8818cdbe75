"""The network tests/gluon/test_dynamic_unroll.py compares with MXNet 1.9.1
(tests/data/gen/gen_dynamic_unroll_reference.py), built with a given ``mx``."""
HIDDEN, INPUT = 4, 3


def unrolled(mx, kind, layout):
    """A HybridBlock running ``dynamic_unroll`` over a ``kind`` cell with prefix ``c_``."""
    from importlib import import_module
    dynamic_unroll = import_module(mx.__name__ + '.gluon.contrib.rnn.rnn_cell').dynamic_unroll

    class Unrolled(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.cell = getattr(mx.gluon.rnn, kind)(HIDDEN, input_size=INPUT, prefix='c_')

        def hybrid_forward(self, F, data, states, valid_length):
            if isinstance(valid_length, list) and not valid_length:
                valid_length = None
            return dynamic_unroll(self.cell, data, states, valid_length=valid_length,
                                  layout=layout)

    return Unrolled()
