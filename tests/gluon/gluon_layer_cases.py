"""Helpers shared by the gluon layer tests (a uniquely named module, imported by
test_conv_layers.py and test_norm_embedding_layers.py): the MXNet reference cases of
tests/data/gluon_layers_reference.npz and a finite-difference gradient."""
import json
import os

import numpy as np

import symmod as mx
from symmod import autograd
from symmod.gluon import nn

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')
REF = np.load(os.path.join(DATA, 'gluon_layers_reference.npz'))
SPECS = {key[:-len('/spec')]: json.loads(str(REF[key]))
         for key in REF.files if key.endswith('/spec')}


def case_keys(classes):
    """The reference cases (``'c<i>'``) of the given layer classes, in file order."""
    keys = [key for key, spec in SPECS.items() if spec['cls'] in classes]
    return sorted(keys, key=lambda k: int(k[1:]))


def _tuples(value):
    return tuple(value) if isinstance(value, list) else value


def build(key):
    """The layer of case ``key`` (JSON turned MXNet's tuples into lists: undo that)."""
    spec = SPECS[key]
    kwargs = {name: _tuples(value) for name, value in spec['kwargs'].items()}
    return getattr(nn, spec['cls'])(**kwargs)


def short_shapes(layer):
    plen = len(layer.prefix)
    return {name[plen:]: list(p.shape) for name, p in layer.params.items()}


def run_case(key, hybridize=False):
    """Build case ``key``, set MXNet's parameter values, run forward and backward with
    MXNet's head gradient. Returns the layer, the output, the input gradient (None for
    integer inputs) and the parameter gradients by short name."""
    spec = SPECS[key]
    layer = build(key)
    x = REF[key + '/x']
    layer.initialize()
    if hybridize:
        layer.hybridize()
    layer(mx.nd.array(x))
    plen = len(layer.prefix)
    for name, param in layer.params.items():
        param.set_data(mx.nd.array(REF['%s/p/%s' % (key, name[plen:])]))
    xin = mx.nd.array(x)
    if not spec['int_input']:
        xin.attach_grad()
    with autograd.record():
        out = layer(xin)
    out.backward(mx.nd.array(REF[key + '/head']))
    grads = {name[plen:]: p.grad().asnumpy() for name, p in layer.params.items()
             if p.grad_req != 'null'}
    dx = None if spec['int_input'] else xin.grad.asnumpy()
    return layer, out.asnumpy(), dx, grads


def check_against_reference(key, hybridize, rtol=1e-4, atol=1e-5):
    """Every number, shape, grad_req and repr of case ``key`` equals MXNet's."""
    spec = SPECS[key]
    fresh = build(key)
    assert repr(fresh) == spec['repr_before']
    assert short_shapes(fresh) == spec['shapes_before']
    layer, out, dx, grads = run_case(key, hybridize)
    assert repr(layer) == spec['repr_after']
    assert short_shapes(layer) == spec['shapes_after']
    plen = len(layer.prefix)
    assert {n[plen:]: p.grad_req for n, p in layer.params.items()} == spec['grad_req']
    np.testing.assert_allclose(out, REF[key + '/out'], rtol=rtol, atol=atol)
    if dx is not None:
        np.testing.assert_allclose(dx, REF[key + '/dx'], rtol=rtol, atol=atol)
    assert sorted(grads) == sorted(k.split('/')[-1] for k in REF.files
                                   if k.startswith(key + '/g/'))
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, REF['%s/g/%s' % (key, name)], rtol=rtol, atol=atol)


def numeric_grad(fun, x, eps=1e-6):
    """Central differences of the scalar ``fun`` at the float64 array ``x``."""
    grad = np.zeros_like(x)
    flat, gflat = x.reshape(-1), grad.reshape(-1)
    for i in range(flat.size):
        old = flat[i]
        flat[i] = old + eps
        up = fun(x)
        flat[i] = old - eps
        down = fun(x)
        flat[i] = old
        gflat[i] = (up - down) / (2 * eps)
    return grad


def check_gradients(layer, x, rtol=1e-5, atol=1e-7, seed=0):
    """Autograd's input and parameter gradients of ``sum(layer(x) * head)`` against
    central differences, in float64 (``layer`` must be initialized)."""
    layer.cast('float64')
    x = np.asarray(x, np.float64)
    layer(mx.nd.array(x, dtype='float64'))       # finish deferred initialization
    head_shape = layer(mx.nd.array(x, dtype='float64')).shape
    head = np.random.RandomState(seed).normal(size=head_shape)

    def loss(value):
        return float((layer(mx.nd.array(value, dtype='float64')).asnumpy() * head).sum())
    xin = mx.nd.array(x, dtype='float64')
    xin.attach_grad()
    with autograd.record():
        out = layer(xin)
    out.backward(mx.nd.array(head, dtype='float64'))
    np.testing.assert_allclose(xin.grad.asnumpy(), numeric_grad(loss, x.copy()),
                               rtol=rtol, atol=atol)
    for param in layer.collect_params().values():
        if param.grad_req == 'null':
            continue
        value = param.data().asnumpy().copy()

        def loss_p(v, param=param):
            param.set_data(mx.nd.array(v, dtype='float64'))
            return loss(x)
        expected = numeric_grad(loss_p, value.copy())
        param.set_data(mx.nd.array(value, dtype='float64'))
        np.testing.assert_allclose(param.grad().asnumpy(), expected, rtol=rtol, atol=atol,
                                   err_msg=param.name)
