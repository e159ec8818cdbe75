"""Updater states: exact resume from symmod's format, MXNet's pickled files, safety."""
import os
import pickle

import numpy as np
import pytest

import symmod as mx

MLP = os.path.join(os.path.dirname(__file__), '..', 'data', 'mxnet-reference', 'mlp')
SHAPES = [(3, 4), (5,)]


def _grads(step):
    rng = np.random.RandomState(100 + step)
    return [rng.normal(0, 1, s).astype(np.float32) for s in SHAPES]


def _setup(name, kwargs, sched):
    sched_obj = None
    if sched is not None:
        sched_obj = getattr(mx.lr_scheduler, sched[0])(**sched[1])
    opt = mx.optimizer.create(name, lr_scheduler=sched_obj, **kwargs)
    rng = np.random.RandomState(0)
    weights = [mx.nd.array(rng.uniform(-1, 1, s)) for s in SHAPES]
    return mx.optimizer.get_updater(opt), weights


def _steps(updater, weights, first, last):
    for step in range(first, last):
        updater([0, 1], [mx.nd.array(g) for g in _grads(step)], weights)


RESUME = [('sgd', {'momentum': 0.9}, ('FactorScheduler', {'step': 2, 'factor': 0.5,
                                                           'base_lr': 0.1})),
          ('adam', {}, ('MultiFactorScheduler', {'step': [2, 3], 'factor': 0.5,
                                                 'base_lr': 0.01})),
          ('nadam', {}, None),
          ('ftml', {'learning_rate': 0.1}, ('PolyScheduler', {'max_update': 8,
                                                              'base_lr': 0.1})),
          ('lars', {'momentum': 0.9, 'learning_rate': 0.1},
           ('CosineScheduler', {'max_update': 8, 'base_lr': 0.1})),
          ('lamb', {}, None),
          ('lbsgd', {'momentum': 0.9, 'batch_scale': 2, 'learning_rate': 0.1}, None)]


@pytest.mark.parametrize('name,kwargs,sched', RESUME, ids=[r[0] for r in RESUME])
def test_resume_is_exact(name, kwargs, sched):
    straight, w_straight = _setup(name, kwargs, sched)
    _steps(straight, w_straight, 0, 5)

    first, w_first = _setup(name, kwargs, sched)
    _steps(first, w_first, 0, 3)
    blob = first.get_states()
    saved_weights = [w.copy() for w in w_first]

    resumed, _ = _setup(name, kwargs, sched)       # a fresh run: counts and schedule at 0
    resumed.set_states(blob)
    _steps(resumed, saved_weights, 3, 5)
    for a, b in zip(saved_weights, w_straight):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert resumed.optimizer.num_update == straight.optimizer.num_update
    assert resumed.optimizer._index_update_count == straight.optimizer._index_update_count


def test_states_are_not_a_pickle():
    updater, weights = _setup('adam', {}, None)
    _steps(updater, weights, 0, 1)
    blob = updater.get_states()
    assert blob.startswith(b'SYMMODST')
    with pytest.raises(Exception):
        pickle.loads(blob)


def test_dump_optimizer_restores_settings():
    updater, weights = _setup('sgd', {'momentum': 0.9, 'learning_rate': 0.3, 'wd': 0.01},
                              None)
    _steps(updater, weights, 0, 2)
    blob = updater.get_states(dump_optimizer=True)
    other = mx.optimizer.get_updater(mx.optimizer.create('sgd'))
    other.set_states(blob)
    assert other.optimizer.lr == 0.3 and other.optimizer.wd == 0.01
    assert other.optimizer.momentum == 0.9 and other.optimizer.num_update == 2
    assert set(other.states) == {0, 1}


def test_mxnet_states_file_loads_and_continues():
    with open(os.path.join(MLP, 'mlp-0003.states'), 'rb') as f:
        blob = f.read()
    expected = np.load(os.path.join(MLP, 'states.npz'))
    opt = mx.optimizer.create('sgd', momentum=0.9, learning_rate=0.1)
    updater = mx.optimizer.get_updater(opt)
    updater.set_states(blob)
    assert sorted(updater.states) == list(range(6))
    for key in expected.files:
        np.testing.assert_array_equal(updater.states[int(key)].asnumpy(), expected[key])
    assert opt.num_update == 0           # MXNet's files carry no counts
    # states are moved to the weight's context on first use, then updated
    weight = mx.nd.array(np.zeros(expected['5'].shape, dtype=np.float32))
    updater(5, mx.nd.zeros(weight.shape), weight)
    np.testing.assert_allclose(weight.asnumpy(), 0.9 * expected['5'], rtol=1e-6)


def test_pickle_with_foreign_globals_is_refused():
    class Evil:
        def __reduce__(self):
            return (os.system, ('true',))
    blob = pickle.dumps({0: Evil()})
    updater = mx.optimizer.get_updater(mx.optimizer.create('sgd'))
    with pytest.raises(mx.MXNetError):
        updater.set_states(blob)


def test_sync_state_context_keeps_structure():
    updater = mx.optimizer.get_updater(mx.optimizer.create('sgd'))
    state = (mx.nd.ones((2,)), [mx.nd.zeros((1,)), None])
    synced = updater.sync_state_context(state, mx.cpu(0))
    assert isinstance(synced, tuple) and isinstance(synced[1], list)
    assert synced[0] is state[0] and synced[1][1] is None
