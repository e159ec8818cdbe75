"""The deprecated mx.model.FeedForward: trains through the legacy executor manager exactly
as Module.fit does, predicts, scores, saves and loads."""
import logging

import numpy as np
import pytest

import symmod as mx
from module_fixtures import mlp_symbol


def _initial_params(sym, batch_size):
    mod = mx.mod.Module(sym)
    mod.bind([('data', (batch_size, 784))], [('softmax_label', (batch_size,))])
    mod.init_params(mx.init.Xavier(magnitude=2.0))
    return {k: v.copy() for k, v in mod.get_params()[0].items()}


def _feedforward(sym, arg_params, **kwargs):
    with pytest.warns(DeprecationWarning, match='FeedForward has been deprecated'):
        return mx.model.FeedForward(sym, arg_params={k: v.copy() for k, v in arg_params.items()},
                                    aux_params={}, **kwargs)


@pytest.mark.parametrize('ctx', [mx.cpu(), [mx.cpu(0), mx.cpu(1)]], ids=['one', 'two'])
def test_training_equals_module_fit(mnist, ctx):
    xtr, ytr, _, _ = mnist
    sym = mlp_symbol(hidden=(32,))
    params = _initial_params(sym, 50)
    opt_params = {'learning_rate': 0.1, 'momentum': 0.9, 'wd': 1e-4}
    model = _feedforward(sym, params, ctx=ctx, num_epoch=2, optimizer='sgd', **opt_params)
    model.fit(mx.io.NDArrayIter(xtr[:500], ytr[:500], batch_size=50))
    mod = mx.mod.Module(sym, context=ctx)
    mod.fit(mx.io.NDArrayIter(xtr[:500], ytr[:500], batch_size=50), num_epoch=2,
            arg_params=params, optimizer='sgd', optimizer_params=opt_params)
    expected = mod.get_params()[0]
    assert sorted(model.arg_params) == sorted(expected)
    for name, value in expected.items():
        np.testing.assert_allclose(model.arg_params[name].asnumpy(), value.asnumpy(),
                                   rtol=1e-5, atol=1e-6, err_msg=name)


def test_create_with_arrays_predict_score_save_load(mnist, tmp_path, caplog):
    xtr, ytr, xte, yte = mnist
    mx.random.seed(1)
    with pytest.warns(DeprecationWarning):
        with caplog.at_level(logging.INFO):
            model = mx.model.FeedForward.create(
                mlp_symbol(), xtr[:1000], ytr[:1000], num_epoch=3, numpy_batch_size=50,
                initializer=mx.init.Xavier(), eval_data=(xte[:200], yte[:200]),
                learning_rate=0.1, momentum=0.9)
    messages = [r.getMessage() for r in caplog.records]
    assert any(m.startswith('Epoch[2] Time cost=') for m in messages)
    assert any(m.startswith('Epoch[2] Validation-accuracy=') for m in messages)
    assert sum('Resetting Data Iterator' in m for m in messages) == 3
    prob = model.predict(xte[:300])
    assert prob.shape == (300, 10)
    accuracy = model.score(mx.io.NDArrayIter(xte[:300], yte[:300], batch_size=100))
    assert accuracy == pytest.approx((prob.argmax(axis=1) == yte[:300]).mean())
    assert accuracy > 0.8
    outputs, data, label = model.predict(mx.io.NDArrayIter(xte[:120], yte[:120], batch_size=50),
                                         return_data=True)
    assert outputs.shape == (120, 10) and data.shape == (120, 784)
    np.testing.assert_array_equal(label, yte[:120])

    prefix = str(tmp_path / 'ff')
    model.save(prefix)
    with pytest.warns(DeprecationWarning):
        loaded = mx.model.FeedForward.load(prefix, 3)
    assert loaded.begin_epoch == 3
    np.testing.assert_allclose(loaded.predict(xte[:300]), prob, rtol=1e-4, atol=1e-6)


def test_epoch_size_and_callbacks(mnist):
    xtr, ytr, _, _ = mnist
    seen = []
    batches = []
    with pytest.warns(DeprecationWarning):
        model = mx.model.FeedForward(mlp_symbol(hidden=(16,)), num_epoch=2, epoch_size=3,
                                     learning_rate=0.05)
    model.fit(mx.io.NDArrayIter(xtr[:200], ytr[:200], batch_size=50),
              epoch_end_callback=lambda epoch, sym, arg, aux: seen.append(
                  (epoch, sorted(arg), arg['fc1_weight'].asnumpy().copy())),
              batch_end_callback=lambda param: batches.append((param.epoch, param.nbatch)))
    # 3 batches per epoch out of 4 available: the iterator is not reset in between
    assert batches == [(0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3)]
    assert [s[0] for s in seen] == [0, 1]
    assert seen[0][1] == ['fc1_bias', 'fc1_weight', 'fc2_bias', 'fc2_weight']
    assert not np.array_equal(seen[0][2], seen[1][2])
    np.testing.assert_array_equal(model.arg_params['fc1_weight'].asnumpy(), seen[1][2])


def test_input_errors():
    with pytest.warns(DeprecationWarning):
        model = mx.model.FeedForward(mlp_symbol(), num_epoch=1)
    x = np.zeros((10, 784), np.float32)
    with pytest.raises(ValueError, match='y must be specified'):
        model.fit(x)
    with pytest.raises(ValueError, match='numbers of data points and labels not equal'):
        model.fit(x, np.zeros(9))
    with pytest.raises(ValueError, match='Label must be 1D or 2D'):
        model.fit(x, np.zeros((10, 2)))
    with pytest.raises(TypeError, match='X must be DataIter'):
        model.fit([1, 2, 3])
    with pytest.raises(TypeError, match='Eval data must be DataIter'):
        model.fit(x, np.zeros(10), eval_data='validation')
