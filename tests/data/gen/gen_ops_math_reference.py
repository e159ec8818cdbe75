"""Writes tests/data/ops_math_reference.npz: forward values and gradients computed by
real MXNet 1.9.1 for the elementwise, broadcast, scalar, unary and reduction operators.

Run with the MXNet environment (not part of the test suite):
    /work/mxvenv/bin/python tests/data/gen/gen_ops_math_reference.py

Each case stores its inputs (``in0``...), the head gradient (``head``), MXNet's output
(``out``) and, for differentiable cases, the input gradients from ``autograd``
(``grad0``...). ``index`` is a JSON list of the cases (operator name, keyword
parameters, number of inputs, whether gradients were taken, and where each array lies:
dtype name, shape, offset into the flat array stored under that dtype name).
"""
import json
import os

import mxnet as mx
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'ops_math_reference.npz')
rng = np.random.RandomState(42)


def uniform(lo, hi, shape=(3, 4), dtype=np.float32):
    return rng.uniform(lo, hi, size=shape).astype(dtype)


def ints(lo, hi, shape=(3, 4), dtype=np.int32):
    return rng.randint(lo, hi, size=shape).astype(dtype)


CASES = []


def case(op, inputs, grad=True, **params):
    CASES.append((op, [np.asarray(x) for x in inputs], params, grad))


# ---- unary math, float32, each on a domain where it is smooth ---------------------------
UNARY_DOMAINS = {
    'relu': (-2, 2), 'sigmoid': (-4, 4), 'softsign': (-3, 3), '_copy': (-2, 2),
    'negative': (-2, 2), 'reciprocal': (0.5, 3), 'abs': (-2, 2), 'sign': (-2, 2),
    'round': (-3, 3), 'rint': (-3, 3), 'ceil': (-3, 3), 'floor': (-3, 3), 'trunc': (-3, 3),
    'fix': (-3, 3), 'square': (-2, 2), 'sqrt': (0.2, 4), 'rsqrt': (0.2, 4), 'cbrt': (0.2, 4),
    'rcbrt': (0.2, 4), 'exp': (-2, 2), 'log': (0.2, 4), 'log10': (0.2, 4), 'log2': (0.2, 4),
    'log1p': (-0.5, 3), 'expm1': (-2, 2), 'sin': (-3, 3), 'cos': (-3, 3), 'tan': (-1.2, 1.2),
    'arcsin': (-0.9, 0.9), 'arccos': (-0.9, 0.9), 'arctan': (-3, 3), 'degrees': (-3, 3),
    'radians': (-180, 180), 'sinh': (-2, 2), 'cosh': (-2, 2), 'tanh': (-2, 2),
    'arcsinh': (-3, 3), 'arccosh': (1.2, 4), 'arctanh': (-0.9, 0.9), 'erf': (-2, 2),
    'erfinv': (-0.95, 0.95), 'gamma': (0.3, 4), 'gammaln': (0.3, 4), 'logical_not': (-1, 1),
    'zeros_like': (-1, 1), 'ones_like': (-1, 1),
}
for name, (lo, hi) in UNARY_DOMAINS.items():
    x = uniform(lo, hi)
    if name in ('round', 'rint', 'fix', 'logical_not'):
        x.flat[:4] = [-1.5, 0.5, 2.5, 0.0]
    case(name, [x])
    case(name, [uniform(lo, hi).astype(np.float64)])
for name in ('negative', 'abs', 'sign', 'square', 'sqrt', 'exp', 'reciprocal', 'round',
             'relu', 'logical_not', 'sigmoid'):
    case(name, [ints(-5, 6)], grad=False)
case('hard_sigmoid', [uniform(-4, 4)])
case('hard_sigmoid', [uniform(-4, 4)], alpha=0.3, beta=0.4)
case('clip', [uniform(-3, 3)], a_min=-1.0, a_max=1.5)
case('clip', [np.array([-2, -1, 0, 1, 2, 3], np.float32)], a_min=-1.0, a_max=2.0)
case('Cast', [uniform(-3, 3)], dtype='float64')
case('Cast', [uniform(-3, 3)], grad=False, dtype='int32')
case('Cast', [ints(-3, 3)], grad=False, dtype='float16')
case('where', [ints(0, 2).astype(np.float32), uniform(-1, 1), uniform(-1, 1)])
case('where', [np.array([1, 0, 1], np.float32), uniform(-1, 1), uniform(-1, 1)])
case('smooth_l1', [uniform(-3, 3)], scalar=1.0)
case('smooth_l1', [uniform(-3, 3)], scalar=2.0)

# ---- binary, same shape ---------------------------------------------------------------
BINARY = ['elemwise_add', 'elemwise_sub', 'elemwise_mul', 'elemwise_div', '_mod', '_power',
          '_maximum', '_minimum', '_hypot', '_equal', '_not_equal', '_greater',
          '_greater_equal', '_lesser', '_lesser_equal', '_logical_and', '_logical_or',
          '_logical_xor']
for name in BINARY:
    lhs = uniform(0.5, 3) if name == '_power' else uniform(-3, 3)
    rhs = uniform(0.5, 2) if name in ('elemwise_div', '_power') else uniform(-3, 3)
    if name in ('_maximum', '_minimum', '_equal', '_greater_equal', '_lesser_equal'):
        rhs.flat[:3] = lhs.flat[:3]          # ties
    if name.startswith('_logical'):
        lhs.flat[:4] = 0
        rhs.flat[2:6] = 0
    case(name, [lhs, rhs])
for name in ('elemwise_div', '_mod', '_power', 'elemwise_sub', '_maximum', '_equal'):
    lhs, rhs = ints(-7, 8), ints(1, 4) * np.where(ints(0, 2) > 0, 1, -1).astype(np.int32)
    if name == '_power':
        lhs, rhs = ints(-3, 4), ints(0, 3)
    case(name, [lhs, rhs], grad=False)
case('add_n', [uniform(-1, 1), uniform(-1, 1), uniform(-1, 1)], num_args=3)

# ---- broadcast ----------------------------------------------------------------------------
BROADCAST = ['broadcast_add', 'broadcast_sub', 'broadcast_mul', 'broadcast_div',
             'broadcast_mod', 'broadcast_power', 'broadcast_maximum', 'broadcast_minimum',
             'broadcast_hypot', 'broadcast_equal', 'broadcast_not_equal', 'broadcast_greater',
             'broadcast_greater_equal', 'broadcast_lesser', 'broadcast_lesser_equal',
             'broadcast_logical_and', 'broadcast_logical_or', 'broadcast_logical_xor']
for name in BROADCAST:
    for lshape, rshape in (((2, 3, 4), (3, 1)), ((2, 1, 4), (1, 3, 1)), ((3, 4), (3, 4))):
        positive = name in ('broadcast_div', 'broadcast_power', 'broadcast_mod')
        lhs = uniform(0.5, 3, lshape) if positive else uniform(-3, 3, lshape)
        rhs = uniform(0.5, 2, rshape) if positive else uniform(-3, 3, rshape)
        if name.startswith('broadcast_logical') or name in ('broadcast_equal',):
            lhs = np.round(lhs)
            rhs = np.round(rhs)
        case(name, [lhs, rhs])
case('broadcast_div', [ints(-7, 8, (2, 3)), ints(1, 3, (1, 3))], grad=False)
case('broadcast_to', [uniform(-1, 1, (2, 1, 3))], shape=(2, 4, 3))
case('broadcast_to', [uniform(-1, 1, (1, 3))], shape=(5, 0))
case('broadcast_axis', [uniform(-1, 1, (1, 3, 1))], axis=(0, 2), size=(2, 4))
case('broadcast_axis', [uniform(-1, 1, (3, 1))], axis=1, size=5)
case('broadcast_like', [uniform(-1, 1, (1, 3)), uniform(-1, 1, (4, 3))])
case('broadcast_like', [uniform(-1, 1, (1, 3)), uniform(-1, 1, (2, 5))], lhs_axes=(0,),
     rhs_axes=(1,))

# ---- scalar forms ---------------------------------------------------------------------------
SCALAR = ['_plus_scalar', '_minus_scalar', '_rminus_scalar', '_mul_scalar', '_div_scalar',
          '_rdiv_scalar', '_mod_scalar', '_rmod_scalar', '_maximum_scalar', '_minimum_scalar',
          '_power_scalar', '_rpower_scalar', '_hypot_scalar', '_equal_scalar',
          '_not_equal_scalar', '_greater_scalar', '_greater_equal_scalar', '_lesser_scalar',
          '_lesser_equal_scalar', '_logical_and_scalar', '_logical_or_scalar',
          '_logical_xor_scalar']
for name in SCALAR:
    positive = name in ('_rdiv_scalar', '_power_scalar', '_rmod_scalar')
    for scalar in (1.5, -0.5, 2.0):
        if name == '_rpower_scalar' and scalar <= 0:
            continue
        x = uniform(0.5, 3) if positive else uniform(-3, 3)
        if name in ('_equal_scalar', '_not_equal_scalar', '_greater_equal_scalar',
                    '_lesser_equal_scalar', '_maximum_scalar', '_minimum_scalar'):
            x.flat[:2] = scalar                # ties
        if name.startswith('_logical'):
            x.flat[:3] = 0
        case(name, [x], scalar=scalar)
    case(name, [ints(1, 6) if positive else ints(-6, 6)], grad=False, scalar=2.5)
    case(name, [uniform(-3, 3, dtype=np.float16) if not positive else
                uniform(0.5, 3, dtype=np.float16)], grad=False, scalar=0.3)

# ---- reductions ---------------------------------------------------------------------------
x3 = uniform(-2, 2, (2, 3, 4))
x3_ties = np.round(uniform(-2, 2, (2, 3, 4)))
for name in ('sum', 'mean', 'prod', 'nansum', 'nanprod', 'max', 'min'):
    data = x3_ties if name in ('max', 'min') else (uniform(0.5, 1.5, (2, 3, 4))
                                                   if name in ('prod', 'nanprod') else x3)
    for params in ({}, {'axis': 1}, {'axis': (0, 2)}, {'axis': -1, 'keepdims': True},
                   {'axis': 1, 'exclude': True}, {'axis': (0, 1), 'exclude': True,
                                                  'keepdims': True}, {'axis': ()}):
        case(name, [data], **params)
    case(name, [ints(-3, 4, (2, 3))], grad=False, axis=1)
for params in ({}, {'ord': 1}, {'axis': 1}, {'ord': 1, 'axis': (0, 2), 'keepdims': True},
               {'axis': (1, 2)}):
    case('norm', [x3], **params)
for name in ('argmax', 'argmin'):
    for params in ({}, {'axis': 1}, {'axis': -1, 'keepdims': True}, {'keepdims': True}):
        case(name, [x3_ties], **params)
    case(name, [ints(-3, 4, (2, 3))], grad=False, axis=0)
case('argmax_channel', [x3_ties], grad=False)


def run(op, inputs, params, grad):
    arrays = [mx.nd.array(x, dtype=x.dtype) for x in inputs]
    if grad:
        for a in arrays:
            a.attach_grad()
    fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op)
    with mx.autograd.record():
        out = fn(*arrays, **params)
    head = rng.uniform(-1, 1, size=out.shape).astype(out.dtype)
    result = {'out': out.asnumpy(), 'head': head}
    if grad:
        out.backward(mx.nd.array(head, dtype=head.dtype))
        for i, a in enumerate(arrays):
            result['grad%d' % i] = a.grad.asnumpy()
    return result


def main():
    # all arrays of one dtype are packed into one flat pool (a .npz entry per array would
    # cost more in zip headers than the data itself); the index says where each one lies
    pools = {}
    index = []

    def put(array):
        array = np.ascontiguousarray(array)
        pool = pools.setdefault(array.dtype.name, [])
        offset = sum(a.size for a in pool)
        pool.append(array.reshape(-1))
        return [array.dtype.name, list(array.shape), offset]

    for op, inputs, params, grad in CASES:
        arrays = {'in%d' % i: x for i, x in enumerate(inputs)}
        arrays.update(run(op, inputs, params, grad))
        index.append({'op': op, 'params': params, 'n_in': len(inputs), 'grad': grad,
                      'arrays': {k: put(v) for k, v in arrays.items()}})
    packed = {name: np.concatenate(pool) for name, pool in pools.items()}
    packed['index'] = np.array(json.dumps(index))
    np.savez_compressed(OUT, **packed)
    print('wrote %d cases to %s' % (len(CASES), OUT))


if __name__ == '__main__':
    main()
