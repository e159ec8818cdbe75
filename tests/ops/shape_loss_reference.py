"""Loader for tests/data/ops_shape_loss_reference.{json,npz}: forward outputs and input
gradients that real MXNet 1.9.1 computed for the loss, shape, slicing, indexing and
linalg operators (see tests/data/gen/gen_ops_shape_loss_reference.py)."""
import functools
import json
import pathlib

import numpy as np

import symmod as mx
from symmod.test_utils import check_symbolic_backward, check_symbolic_forward

_DATA = pathlib.Path(__file__).resolve().parent.parent / 'data'


@functools.lru_cache(maxsize=1)
def _load():
    with open(_DATA / 'ops_shape_loss_reference.json') as f:
        cases = json.load(f)['cases']
    with np.load(_DATA / 'ops_shape_loss_reference.npz') as data:
        arrays = {k: data[k] for k in data.files}
    return cases, arrays


def case_names(*ops):
    """Names of the reference cases of the given operators (as MXNet spelled them)."""
    cases, _ = _load()
    return sorted(name for name, c in cases.items() if c['op'] in ops)


def check_case(name, tol=None):
    """Bind the case's symbol in symmod; compare forward and input gradients with MXNet."""
    cases, arrays = _load()
    case = cases[name]
    dtype = np.dtype(case['dtype'])
    tol = tol if tol is not None else (1e-5 if dtype == np.float32 else 1e-10)
    names = case['inputs']
    sym = getattr(mx.sym, case['op'])(*[mx.sym.Variable(n) for n in names], **case['params'])
    assert sym.list_arguments() == names
    location = {n: arrays['%s/in/%s' % (name, n)] for n in names}
    outputs = [arrays['%s/out%d' % (name, i)] for i in range(case['num_outputs'])]
    check_symbolic_forward(sym, location, outputs, rtol=tol, atol=tol, dtype=dtype)
    if not case['grad_of']:
        return
    heads = [arrays['%s/head%d' % (name, i)] for i in range(case['num_outputs'])]
    expected = {n: arrays['%s/grad/%s' % (name, n)] for n in case['grad_of']}
    grad_req = {n: ('write' if n in expected else 'null') for n in names}
    check_symbolic_backward(sym, location, heads, expected, rtol=tol, atol=tol,
                            grad_req=grad_req, dtype=dtype)
