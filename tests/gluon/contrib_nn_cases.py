"""The gluon.contrib blocks of tests/data/gluon_contrib_reference.npz, built by a given
``mx`` (symmod in tests/gluon/test_gluon_contrib_nn.py and test_conv_rnn_cells.py or,
in tests/data/gen/gen_gluon_contrib_reference.py, real MXNet), and the runs both sides
make of them."""
import numpy as np

# convolutional cells: class, input_shape (one step, no batch), hidden channels, kwargs
CONV_CELLS = {
    'rnn1d': ('Conv1DRNNCell', (3, 6), 4, {'i2h_kernel': 3, 'h2h_kernel': 3, 'i2h_pad': 1}),
    'rnn2d': ('Conv2DRNNCell', (2, 5, 4), 3, {'i2h_kernel': (3, 3), 'h2h_kernel': (3, 1),
                                              'i2h_pad': (1, 1), 'activation': 'relu'}),
    'rnn3d': ('Conv3DRNNCell', (2, 3, 4, 3), 2, {'i2h_kernel': 3, 'h2h_kernel': 3,
                                                 'i2h_pad': 1}),
    'lstm1d': ('Conv1DLSTMCell', (2, 7), 3, {'i2h_kernel': 3, 'h2h_kernel': 5,
                                             'h2h_dilate': 2}),
    'lstm2d': ('Conv2DLSTMCell', (3, 4, 5), 2, {'i2h_kernel': (3, 3), 'h2h_kernel': (3, 3),
                                                'i2h_pad': (1, 1)}),
    'lstm3d': ('Conv3DLSTMCell', (2, 3, 3, 4), 2, {'i2h_kernel': (1, 3, 3),
                                                   'h2h_kernel': (3, 3, 3),
                                                   'i2h_pad': (0, 1, 1)}),
    'gru1d': ('Conv1DGRUCell', (3, 7), 4, {'i2h_kernel': 3, 'h2h_kernel': 3,
                                           'i2h_dilate': 2, 'activation': 'softsign'}),
    'gru2d': ('Conv2DGRUCell', (2, 4, 4), 3, {'i2h_kernel': (3, 3), 'h2h_kernel': (3, 3),
                                              'i2h_pad': (1, 1)}),
    'gru3d': ('Conv3DGRUCell', (2, 3, 3, 3), 2, {'i2h_kernel': 3, 'h2h_kernel': 1,
                                                 'i2h_pad': 1}),
}
BATCH, STEPS = 2, 2


def conv_cell(mx, case):
    cls, input_shape, hidden, kwargs = CONV_CELLS[case]
    return getattr(mx.gluon.contrib.rnn, cls)(input_shape, hidden, prefix=case + '_', **kwargs)


def run_conv_cell(mx, cell, x, begin_states, heads):
    """Unroll (NTC, merged outputs) under autograd for the loss ``sum(out * heads[0]) +
    sum_k sum(state_k * heads[k + 1])``; returns the outputs, final states and the
    gradients of the input, begin states and parameters, as numpy arrays."""
    data = mx.nd.array(x)
    data.attach_grad()
    states = [mx.nd.array(s) for s in begin_states]
    for s in states:
        s.attach_grad()
    with mx.autograd.record():
        out, new_states = cell.unroll(x.shape[1], data, begin_state=states, layout='NTC',
                                      merge_outputs=True)
        loss = (out * mx.nd.array(heads[0])).sum()
        for k, s in enumerate(new_states):
            loss = loss + (s * mx.nd.array(heads[k + 1])).sum()
    loss.backward()
    res = {'out': out.asnumpy(), 'grad_x': data.grad.asnumpy()}
    res.update({'state%d' % k: s.asnumpy() for k, s in enumerate(new_states)})
    res.update({'grad_state%d' % k: s.grad.asnumpy() for k, s in enumerate(states)})
    res.update({'grad_param/' + name: p.grad().asnumpy()
                for name, p in cell.collect_params().items()})
    return res


def pixel_shuffle_input(dims):
    """An (N, C, spatial...) arange input whose channels split by the factors below."""
    shape = {1: (2, 6, 3), 2: (1, 12, 2, 3), 3: (1, 16, 2, 1, 3)}[dims]
    return np.arange(np.prod(shape), dtype=np.float32).reshape(shape)


PIXEL_FACTORS = {1: 3, 2: (2, 3), 3: (2, 1, 4)}


def concurrent_net(mx, hybrid):
    """A (Hybrid)Concurrent of a Dense, an Identity and a nested Sequential, axis 1."""
    nn, cnn = mx.gluon.nn, mx.gluon.contrib.nn
    net = (cnn.HybridConcurrent if hybrid else cnn.Concurrent)(axis=1, prefix='cc_')
    inner = (nn.HybridSequential if hybrid else nn.Sequential)(prefix='inner_')
    with inner.name_scope():
        inner.add(nn.Dense(2, activation='tanh'))
    with net.name_scope():
        net.add(nn.Dense(3), cnn.Identity(), inner)
    return net
