"""Write tests/data/rnn_symbol_json_reference.json: the symbol JSON MXNet 1.9.1 writes
for the graphs of tests/ops/rnn_symbol_cases.py, which hold a fused ``RNN`` node (its
outputs count in ``node_row_ptr``).

Run with the real MXNet (not in CI):  /work/mxvenv/bin/python tests/data/gen/gen_rnn_symbol_json.py

Each graph is built inside a fresh NameManager, so auto-names start from zero; the
test builds the same graphs with symmod the same way and compares the text.
"""
import json
import pathlib
import sys

import mxnet as mx

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2] / 'ops'))
from rnn_symbol_cases import GRAPHS  # noqa: E402


def main():
    texts = {}
    for key, build in GRAPHS.items():
        with mx.name.NameManager():
            texts[key] = build(mx).tojson()
    path = HERE.parents[1] / 'rnn_symbol_json_reference.json'
    with open(path, 'w') as f:
        json.dump(texts, f, indent=1, sort_keys=True)
        f.write('\n')
    print('wrote %s (%d graphs)' % (path, len(texts)))


if __name__ == '__main__':
    main()
