"""Generate the Custom-operator fixtures with real MXNet 1.9.1
(run with /work/mxvenv/bin/python; not part of the test run).

Writes into tests/data/:
- custom_symbol_reference.json: MXNet's tojson() of custom_cases.json_graph;
- custom_reference.npz: that graph bound with simple_bind on json_graph_inputs(), after
  forward(is_train=True) and backward(): the output, the gradients of data / fc1_weight /
  fc1_bias /
  stats_shift and the updated auxiliary state stats_running_mean.
"""
import os
import sys

import numpy as np
import mxnet as mx

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..')
sys.path.insert(0, os.path.join(HERE, '..', '..', 'ops'))
import custom_cases  # noqa: E402  (shared with tests/ops/test_custom.py)


def main():
    custom_cases.register_ops(mx)
    sym = custom_cases.json_graph(mx)
    with open(os.path.join(OUT, 'custom_symbol_reference.json'), 'w') as f:
        f.write(sym.tojson())
    inputs = custom_cases.json_graph_inputs()
    exe = sym.simple_bind(mx.cpu(), grad_req='write',
                          **{k: v.shape for k, v in inputs.items()})
    for name, value in inputs.items():
        exe.arg_dict[name][:] = value
    exe.aux_dict['stats_running_mean'][:] = 0.25
    exe.forward(is_train=True)
    exe.backward()
    np.savez(os.path.join(OUT, 'custom_reference.npz'),
             output=exe.outputs[0].asnumpy(),
             grad_data=exe.grad_dict['data'].asnumpy(),
             grad_fc1_weight=exe.grad_dict['fc1_weight'].asnumpy(),
             grad_fc1_bias=exe.grad_dict['fc1_bias'].asnumpy(),
             grad_stats_shift=exe.grad_dict['stats_shift'].asnumpy(),
             stats_running_mean=exe.aux_dict['stats_running_mean'].asnumpy())


if __name__ == '__main__':
    main()
