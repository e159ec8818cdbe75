"""The profiler's "Custom Operator" domain: a custom operator's Python code and the
operators it calls are aggregated under its name, imperatively and in bound graphs."""
import json

import numpy as np
import pytest

import symmod as mx


class _AddOne(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        self.assign(out_data[0], req[0], in_data[0] + 1)
        mx.nd.zeros((3, 3))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.assign(in_grad[0], req[0], out_grad[0])


@mx.operator.register('profiled_add_one')
class _AddOneProp(mx.operator.CustomOpProp):
    def list_arguments(self):
        return ['data']

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _AddOne()


@pytest.fixture
def profiling(tmp_path):
    mx.profiler.set_config(profile_all=True, aggregate_stats=True,
                           filename=str(tmp_path / 'trace.json'))
    mx.profiler.set_state('run')
    mx.profiler.dumps(reset=True)
    yield
    mx.profiler.set_state('stop')
    mx.profiler.dump(finished=True)         # write out (and drop) what was recorded
    mx.profiler.set_config(aggregate_stats=False)


def _custom_domain():
    return json.loads(mx.profiler.dumps(format='json'))['Time'].get('Custom Operator', {})


def test_imperative_custom_operator_and_its_gradient(profiling):
    x = mx.nd.array([0.0, 1.0])
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.Custom(x, op_type='profiled_add_one')
    y.backward()
    domain = _custom_domain()
    assert {'profiled_add_one::pure_python', '_backward_profiled_add_one::pure_python',
            'profiled_add_one::_zeros', 'profiled_add_one::_plus_scalar'} <= set(domain)
    assert domain['profiled_add_one::pure_python']['Count'] == 1
    assert np.array_equal(x.grad.asnumpy(), [1, 1])


def test_symbolic_custom_operator(profiling):
    sym = mx.sym.Custom(mx.sym.var('a'), op_type='profiled_add_one')
    sym.bind(mx.cpu(), {'a': mx.nd.zeros((2,))}).forward()
    assert 'profiled_add_one::pure_python' in _custom_domain()


def test_nothing_recorded_when_the_profiler_is_off():
    mx.profiler.set_state('stop')
    out = mx.nd.Custom(mx.nd.zeros((2,)), op_type='profiled_add_one')
    assert out.asnumpy().tolist() == [1, 1]
