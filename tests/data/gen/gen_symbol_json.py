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
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'mxnet-reference', 'symbols')
LEGACY = os.path.join(HERE, '..', 'mxnet-reference', 'legacy', 'save_000800.json')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'symbol'))
from symbol_cases import composite  # noqa: E402  (shared with tests/symbol)


def main():
    os.makedirs(OUT, exist_ok=True)
    legacy = mx.sym.load(LEGACY)
    with open(os.path.join(OUT, 'save_000800_upgraded.json'), 'w') as f:
        f.write(legacy.tojson())
    sym = composite(mx)
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
