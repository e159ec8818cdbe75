"""Generate symbol-JSON fixtures with real MXNet 1.9.1 (run with /work/mxvenv/bin/python).

Writes into tests/data/mxnet-reference/symbols/:
- save_000800_upgraded.json: MXNet's tojson() of the legacy 0.8 file after its upgrade;
- composite.json: a graph exercising naming, scopes, hidden attributes, BatchNorm,
  Concat, SliceChannel and symbol arithmetic, as MXNet writes it;
- composite_info.json: list_arguments / outputs / auxiliary states / attr_dict and
  infer_shape results of composite.json for data (4, 3, 8, 8).
"""
import json
import os

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'mxnet-reference', 'symbols')
LEGACY = os.path.join(HERE, '..', 'mxnet-reference', 'legacy', 'save_000800.json')


def composite():
    data = mx.sym.var('data')
    with mx.AttrScope(ctx_group='stage1'):
        conv = mx.sym.Convolution(data, num_filter=4, kernel=(3, 3), pad=(1, 1), name='conv1')
        bn = mx.sym.BatchNorm(conv, fix_gamma=False, name='bn1')
    act = mx.sym.Activation(bn, act_type='relu')
    pool = mx.sym.Pooling(act, kernel=(2, 2), stride=(2, 2), pool_type='max')
    parts = mx.sym.SliceChannel(pool, num_outputs=2, axis=1)
    joined = mx.sym.Concat(parts[1], parts[0], dim=1)
    with mx.name.Prefix('head_'):
        flat = mx.sym.Flatten(joined)
        w = mx.sym.var('w', shape=(10, 64), lr_mult=2.0, wd_mult=0.5, dtype='float32')
        fc = mx.sym.FullyConnected(flat, weight=w, num_hidden=10, name='fc')
    scaled = (fc * 2.0 + 1) / fc - fc ** 2
    return mx.sym.Group([mx.sym.SoftmaxOutput(scaled, name='softmax'), mx.sym.BlockGrad(bn)])


def main():
    os.makedirs(OUT, exist_ok=True)
    legacy = mx.sym.load(LEGACY)
    with open(os.path.join(OUT, 'save_000800_upgraded.json'), 'w') as f:
        f.write(legacy.tojson())
    sym = composite()
    with open(os.path.join(OUT, 'composite.json'), 'w') as f:
        f.write(sym.tojson())
    arg_shapes, out_shapes, aux_shapes = sym.infer_shape(data=(4, 3, 8, 8))
    info = {
        'list_arguments': sym.list_arguments(),
        'list_outputs': sym.list_outputs(),
        'list_auxiliary_states': sym.list_auxiliary_states(),
        'attr_dict': sym.attr_dict(),
        'arg_shapes': arg_shapes, 'out_shapes': out_shapes, 'aux_shapes': aux_shapes,
        'internals': sym.get_internals().list_outputs(),
    }
    with open(os.path.join(OUT, 'composite_info.json'), 'w') as f:
        json.dump(info, f, indent=1, sort_keys=True)


if __name__ == '__main__':
    main()
