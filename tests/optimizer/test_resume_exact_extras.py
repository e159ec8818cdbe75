"""Exact resume for what random numbers drive (issue 11 item 8): SGLD's noise generator
travels with the optimizer states, and BucketSentenceIter with a seed gives each epoch
an order that depends only on (seed, epoch)."""
import numpy as np
import pytest

import symmod as mx
from symmod import autograd, gluon

SHAPES = [(3, 4), (5,)]


def _grads(step):
    rng = np.random.RandomState(100 + step)
    return [mx.nd.array(rng.normal(0, 1, s)) for s in SHAPES]


def _sgld():
    opt = mx.optimizer.create('sgld', learning_rate=0.01, wd=0.01)
    return mx.optimizer.get_updater(opt), [mx.nd.ones(s) for s in SHAPES]


def _steps(updater, weights, first, last):
    for step in range(first, last):
        updater([0, 1], _grads(step), weights)


def test_sgld_resumes_exactly_from_updater_states():
    mx.random.seed(7)
    straight, w_straight = _sgld()
    _steps(straight, w_straight, 0, 5)

    mx.random.seed(7)
    first, w_first = _sgld()
    _steps(first, w_first, 0, 3)
    blob = first.get_states()
    saved = [w.copy() for w in w_first]

    mx.random.seed(12345)           # whatever the global generator does meanwhile
    mx.random.normal(shape=(10,))
    resumed, _ = _sgld()
    resumed.set_states(blob)
    _steps(resumed, saved, 3, 5)
    for a, b in zip(saved, w_straight):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_sgld_resumes_exactly_from_trainer_states(tmp_path):
    def run(steps, load=None, save=None):
        param = gluon.Parameter('w', shape=(6,))
        param.initialize(ctx=mx.cpu(0))
        param.set_data(mx.nd.ones((6,)) if load is None else load[0])
        trainer = gluon.Trainer([param], 'sgld', {'learning_rate': 0.01})
        if load is not None:
            trainer.load_states(load[1])
        for step in steps:
            with autograd.record():
                loss = (param.data() * mx.nd.array(np.arange(6) + step)).sum()
            loss.backward()
            trainer.step(1)
            if save is not None and step == save[0]:
                trainer.save_states(save[1])
                save.append(param.data().copy())
        return param.data().asnumpy()

    mx.random.seed(3)
    path = str(tmp_path / 'sgld.states')
    saving = [2, path]
    straight = run(range(5), save=saving)
    mx.random.seed(99)
    resumed = run(range(3, 5), load=(saving[2], path))
    np.testing.assert_array_equal(resumed, straight)


def _sentences():
    rng = np.random.RandomState(0)
    return [list(rng.randint(1, 50, size=rng.randint(3, 12))) for _ in range(200)]


def _epoch(it):
    return [(b.bucket_key, b.data[0].asnumpy().tobytes()) for b in it]


def test_seeded_bucket_iterator_resumes_the_data_order():
    straight = mx.rnn.BucketSentenceIter(_sentences(), 8, buckets=[5, 8, 12], seed=11)
    orders = []
    for _ in range(4):
        orders.append(_epoch(straight))
        straight.reset()
    assert orders[0] != orders[1]            # still shuffled every epoch
    random_noise = np.random.RandomState(5).rand(3)   # global generators play no part
    np.random.shuffle(random_noise)
    resumed = mx.rnn.BucketSentenceIter(_sentences(), 8, buckets=[5, 8, 12], seed=11)
    resumed.set_epoch(2)
    assert resumed.epoch == 2
    assert _epoch(resumed) == orders[2]
    resumed.reset()
    assert _epoch(resumed) == orders[3]


def test_unseeded_bucket_iterator_keeps_mxnets_global_generators():
    np.random.seed(4)
    import random
    random.seed(4)
    a = _epoch(mx.rnn.BucketSentenceIter(_sentences(), 8, buckets=[5, 8, 12]))
    np.random.seed(4)
    random.seed(4)
    b = _epoch(mx.rnn.BucketSentenceIter(_sentences(), 8, buckets=[5, 8, 12]))
    assert a == b
    with pytest.raises(ValueError, match='seed'):
        mx.rnn.BucketSentenceIter(_sentences(), 8, buckets=[5, 8, 12]).set_epoch(1)
