"""Record what MXNet 1.9.1's HybridBlock.register_op_hook reports
(tests/gluon/test_op_hook.py).

Run with the real MXNet (not part of the test suite):

    /work/mxnet-venv/bin/python tests/data/gen/gen_op_hook_reference.py

Writes tests/data/gluon/op_hook_reference.json: per case "<net>/<monitor_all>" the
(node name, operator name) pairs in call order.
"""
import json
import os
import sys

import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..', '..', 'gluon'))
from op_hook_cases import CASES, report  # noqa: E402


def main():
    record = {'%s/%s' % (case, all_): report(mx, case, all_) for case, all_ in CASES}
    path = os.path.join(HERE, '..', 'gluon', 'op_hook_reference.json')
    with open(path, 'w') as f:
        json.dump(record, f, indent=1, sort_keys=True)
    print('wrote', path)


if __name__ == '__main__':
    main()
