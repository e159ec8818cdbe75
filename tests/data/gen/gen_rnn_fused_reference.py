"""Write tests/data/rnn_fused_reference.npz with MXNet 1.9.1's fused RNN numbers.

Run with the real MXNet (not in CI):  /work/mxvenv/bin/python tests/data/gen/gen_rnn_fused_reference.py

For each configuration (mode, layers, bidirectional, state_outputs, dtype) the file
holds the inputs, the forward outputs, the gradients of all inputs for random head
gradients, and the argument/output names and inferred shapes (as JSON strings).
A FusedRNNCell-unrolled graph's JSON is stored too.
"""
import json
import os

import mxnet as mx
import numpy as np

CONFIGS = [
    # mode, num_layers, bidirectional, state_outputs, dtype
    ('rnn_tanh', 1, False, False, 'float64'),
    ('rnn_relu', 2, False, True, 'float64'),
    ('lstm', 1, False, True, 'float64'),
    ('lstm', 2, True, True, 'float64'),
    ('gru', 2, False, True, 'float64'),
    ('gru', 1, True, False, 'float64'),
    ('lstm', 2, True, True, 'float32'),
    ('gru', 1, False, True, 'float32'),
    ('rnn_tanh', 2, True, True, 'float32'),
]
T, N, I, H = 4, 3, 5, 3


def run(mode, layers, bidir, state_outputs, dtype, rng):
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=layers, mode=mode,
                     bidirectional=bidir, state_outputs=state_outputs, name='rnn')
    arg_shapes, out_shapes, _ = sym.infer_shape(data=(T, N, I))
    names = sym.list_arguments()
    args = {n: rng.uniform(-0.6, 0.6, s).astype(dtype) for n, s in zip(names, arg_shapes)}
    exe = sym.bind(mx.cpu(), {n: mx.nd.array(a, dtype=dtype) for n, a in args.items()},
                   args_grad={n: mx.nd.zeros(a.shape, dtype=dtype) for n, a in args.items()})
    exe.forward(is_train=True)
    outs = [o.asnumpy() for o in exe.outputs]
    heads = [rng.uniform(-1, 1, o.shape).astype(dtype) for o in outs]
    exe.backward([mx.nd.array(h, dtype=dtype) for h in heads])
    grads = {n: exe.grad_dict[n].asnumpy() for n in names}
    exe.forward(is_train=False)
    infer_outs = [o.asnumpy() for o in exe.outputs]
    key = '%s_l%d_b%d_s%d_%s' % (mode, layers, int(bidir), int(state_outputs), dtype)
    data = {'meta': json.dumps({'mode': mode, 'num_layers': layers, 'bidirectional': bidir,
                                'state_outputs': state_outputs, 'dtype': dtype,
                                'arguments': names, 'outputs': sym.list_outputs(),
                                'arg_shapes': arg_shapes, 'out_shapes': out_shapes})}
    for n in names:
        data['arg_' + n] = args[n]
        data['grad_' + n] = grads[n]
    for i, (o, h, oi) in enumerate(zip(outs, heads, infer_outs)):
        data['out%d' % i] = o
        data['head%d' % i] = h
        data['infer_out%d' % i] = oi
    return {key + '/' + k: v for k, v in data.items()}


def run_projected(layers, bidir, rng):
    """LSTM with projection: MXNet's CPU build runs it in inference only (and only with
    state_outputs=True; without them its kernel writes through a null pointer)."""
    sym = mx.sym.RNN(mx.sym.var('data'), state_size=H, num_layers=layers, mode='lstm',
                     bidirectional=bidir, state_outputs=True, projection_size=2, name='rnn')
    arg_shapes, out_shapes, _ = sym.infer_shape(data=(T, N, I))
    names = sym.list_arguments()
    args = {n: rng.uniform(-0.6, 0.6, s) for n, s in zip(names, arg_shapes)}
    exe = sym.bind(mx.cpu(), {n: mx.nd.array(a, dtype='float64') for n, a in args.items()})
    exe.forward(is_train=False)
    key = 'proj_l%d_b%d' % (layers, int(bidir))
    data = {'meta': json.dumps({'num_layers': layers, 'bidirectional': bidir,
                                'arg_shapes': arg_shapes, 'out_shapes': out_shapes})}
    for n in names:
        data['arg_' + n] = args[n]
    for i, o in enumerate(exe.outputs):
        data['out%d' % i] = o.asnumpy()
    return {key + '@' + k: v for k, v in data.items()}


GLUON_CONFIGS = [
    # layer, kwargs
    ('LSTM', {'num_layers': 2, 'bidirectional': True, 'layout': 'NTC'}),
    ('GRU', {'num_layers': 1}),
    ('RNN', {'num_layers': 2, 'activation': 'tanh'}),
]


def run_gluon(cls_name, kwargs, rng):
    """A gluon layer (input_size given) with explicit states, under autograd."""
    layer = getattr(mx.gluon.rnn, cls_name)(H, input_size=I, prefix='layer_', **kwargs)
    layer.initialize()
    params = layer.collect_params()
    values = {}
    for name in sorted(params.keys()):
        values[name[len('layer_'):]] = rng.uniform(-0.6, 0.6, params[name].shape)
        params[name].set_data(mx.nd.array(values[name[len('layer_'):]]))
    layout = kwargs.get('layout', 'TNC')
    shape = (T, N, I) if layout == 'TNC' else (N, T, I)
    x = mx.nd.array(rng.uniform(-1, 1, shape))
    x.attach_grad()
    states = [mx.nd.array(rng.uniform(-1, 1, info['shape']))
              for info in layer.state_info(N)]
    with mx.autograd.record():
        out, new_states = layer(x, states)
        heads = [rng.uniform(-1, 1, a.shape) for a in [out] + new_states]
        loss = sum((a * mx.nd.array(h)).sum() for a, h in zip([out] + new_states, heads))
    loss.backward()
    key = 'gluon_' + cls_name
    data = {'meta': json.dumps({'kwargs': kwargs,
                                'param_names': sorted(values),
                                'saved_keys': sorted(layer._collect_params_with_prefix()),
                                'repr': repr(layer)}),
            'x': x.asnumpy(), 'x_grad': x.grad.asnumpy(), 'out': out.asnumpy()}
    for i, (st, new) in enumerate(zip(states, new_states)):
        data['state%d' % i] = st.asnumpy()
        data['new_state%d' % i] = new.asnumpy()
    for i, h in enumerate(heads):
        data['head%d' % i] = h
    for name, value in values.items():
        data['param_' + name] = value
        data['grad_' + name] = params['layer_' + name].grad().asnumpy()
    return {key + '@' + k: v for k, v in data.items()}


def fused_cell_json():
    cell = mx.rnn.FusedRNNCell(4, num_layers=2, mode='gru', bidirectional=True,
                               get_next_state=True, prefix='fused_')
    outputs, states = cell.unroll(3, mx.sym.var('data'), layout='NTC', merge_outputs=True)
    return mx.sym.Group([outputs] + states).tojson()


def cell_names():
    """Names MXNet gives the unpacked weights and the unfused stack's arguments."""
    names = {}
    for mode in ('lstm', 'gru', 'rnn_relu'):
        cell = mx.rnn.FusedRNNCell(3, num_layers=2, mode=mode, bidirectional=True,
                                   dropout=0.5, prefix='f_')
        outputs, _ = cell.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
        shapes = dict(zip(outputs.list_arguments(),
                          outputs.infer_shape(data=(2, 4, 5))[0]))
        flat = mx.nd.arange(shapes['f_parameters'][0])
        unpacked = cell.unpack_weights({'f_parameters': flat})
        stack = cell.unfuse()
        s_out, _ = stack.unroll(2, mx.sym.var('data'), layout='TNC', merge_outputs=True)
        names[mode] = {'unpacked': {k: v.asnumpy().tolist() for k, v in unpacked.items()},
                       'unfused_arguments': s_out.list_arguments(),
                       'unfused_outputs': s_out.list_outputs(),
                       'fused_arguments': outputs.list_arguments(),
                       'state_info': cell.state_info}
    return json.dumps(names)


def main():
    rng = np.random.RandomState(7)
    arrays = {}
    for config in CONFIGS:
        arrays.update(run(*config, rng=rng))
    arrays.update(run_projected(1, False, rng))
    arrays.update(run_projected(2, True, rng))
    for cls_name, kwargs in GLUON_CONFIGS:
        arrays.update(run_gluon(cls_name, kwargs, rng))
    arrays['fused_cell_json'] = np.array(fused_cell_json())
    arrays['cell_names'] = np.array(cell_names())
    path = os.path.join(os.path.dirname(__file__), '..', 'rnn_fused_reference.npz')
    np.savez_compressed(path, **arrays)
    print('wrote %s (%d arrays)' % (os.path.abspath(path), len(arrays)))


if __name__ == '__main__':
    main()
