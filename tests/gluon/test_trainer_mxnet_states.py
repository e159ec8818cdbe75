"""gluon Trainer state files of MXNet 1.9.1 (issue 11 item 4).

MXNet's ``Trainer.save_states`` pickles the updater states together with the optimizer
object. symmod reads them through its bounded, restricted pickle reader (an explicit
table of MXNet's optimizer and scheduler classes, no code run) and continues training:
the two steps after loading equal MXNet's (tests/data/gen/gen_trainer_states.py).
``Trainer.save_states`` writes the same kind of pickle, so MXNet reads symmod's files.
"""
import io
import os
import pickle
import re

import numpy as np
import pytest

import symmod as mx
from symmod import gluon
from symmod.base import MXNetError

from trainer_states_cases import CASES, make_net, step as _step

REF = os.path.join(os.path.dirname(__file__), '..', 'data', 'mxnet-reference', 'trainer_states')


def by_layer(item):
    """Sort key for ('dense10_weight', value): the layer counter as a number, so that
    the order does not change when the name counters of earlier tests pass 9 -> 10."""
    number, kind = re.fullmatch(r'\D*(\d+)_(\w+)', item[0].rsplit('/', 1)[-1]).groups()
    return int(number), kind


def step(net, trainer, x, y, ctxs):
    _step(mx, net, trainer, x, y, ctxs)


def resumed(case, optimizer='sgd', params=None):
    ctxs = [mx.cpu(i) for i in range(CASES[case]['ctxs'])]
    net = make_net(mx, ctxs)
    net.load_parameters(os.path.join(REF, case + '-0003.params'), ctx=ctxs)
    # deliberately other settings: MXNet's Trainer.load_states takes the file's optimizer
    trainer = gluon.Trainer(net.collect_params(), optimizer,
                            params or {'learning_rate': 0.5}, kvstore='device',
                            update_on_kvstore=CASES[case]['uok'])
    trainer.load_states(os.path.join(REF, case + '.states'))
    return net, trainer, ctxs


@pytest.mark.parametrize('case', sorted(CASES))
def test_steps_after_loading_mxnets_trainer_states_equal_mxnets(case):
    expected = np.load(os.path.join(REF, 'expected.npz'))
    net, trainer, ctxs = resumed(case)
    for _ in range(2):
        step(net, trainer, expected['x'], expected['y'], ctxs)
    mine = net.collect_params()
    names = [k for k, _ in sorted(((k, None) for k in expected.files
                                   if k.startswith(case + '/')), key=by_layer)]
    assert len(names) == len(list(mine.items())) == 4
    for (_, param), name in zip(sorted(mine.items(), key=by_layer), names):
        np.testing.assert_allclose(param.data(ctxs[0]).asnumpy(), expected[name],
                                   rtol=1e-5, atol=1e-6)
    assert trainer._optimizer.num_update == 5


def test_the_files_optimizer_replaces_the_trainers_as_in_mxnet():
    _, trainer, _ = resumed('adam_factor_1ctx', 'sgd', {'learning_rate': 0.5})
    opt = trainer._optimizer
    assert type(opt).__name__ == 'Adam' and opt.num_update == 3
    assert type(opt.lr_scheduler).__name__ == 'FactorScheduler'
    assert (opt.lr_scheduler.step, opt.lr_scheduler.factor) == (2, 0.5)
    assert opt.param_dict and all(isinstance(k, int) for k in opt.param_dict)


@pytest.mark.parametrize('key', ['__class__', '_secret', 'no_such_setting'])
def test_only_declared_attributes_may_come_from_the_file(tmp_path, key):
    blob = open(os.path.join(REF, 'sgd_momentum_1ctx.states'), 'rb').read()
    # rename the attribute 'momentum' in the pickled dict (same length keeps offsets)
    old = b'\x8c\x08momentum'
    new_key = (key + '_' * 8)[:8].encode()
    assert blob.count(old) == 1
    path = tmp_path / 'bad.states'
    path.write_bytes(blob.replace(old, b'\x8c\x08' + new_key))
    net = make_net(mx, [mx.cpu(0)])
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    with pytest.raises(MXNetError, match='bad.states'):
        trainer.load_states(str(path))


def test_classes_outside_the_table_are_refused_without_running_anything(tmp_path):
    blob = open(os.path.join(REF, 'sgd_momentum_1ctx.states'), 'rb').read()
    bad = blob.replace(b'\x8c\x19mxnet.optimizer.optimizer\x94\x8c\x03SGD',
                       b'\x8c\x19mxnet.optimizer.optimizer\x94\x8c\x03XYZ')
    assert bad != blob
    path = tmp_path / 'bad.states'
    path.write_bytes(bad)
    net = make_net(mx, [mx.cpu(0)])
    trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})
    with pytest.raises(MXNetError, match='XYZ'):
        trainer.load_states(str(path))


# ---- what symmod writes ----------------------------------------------------------------------
class Stub:
    """Stands in for MXNet's classes when a test unpickles symmod's file with pickle."""

    def __init__(self, *args):
        self.args = args

    def __setstate__(self, state):
        self.__dict__.update(state)


class StubUnpickler(pickle.Unpickler):
    def find_class(self, module, name):
        if module.startswith('mxnet.'):
            return type(name, (Stub,), {'module': module})
        if (module, name) == ('builtins', 'bytearray'):
            return bytearray
        raise pickle.UnpicklingError('%s.%s' % (module, name))


def unpickle(blob):
    return StubUnpickler(io.BytesIO(blob)).load()


def saved_one_step_later(case, tmp_path):
    """Resume ``case``, take step 4, save the trainer states: (net, trainer, ctxs, path)."""
    expected = np.load(os.path.join(REF, 'expected.npz'))
    net, trainer, ctxs = resumed(case)
    step(net, trainer, expected['x'], expected['y'], ctxs)
    path = tmp_path / 'mine.states'
    trainer.save_states(str(path))
    return net, trainer, ctxs, path


def test_save_states_writes_mxnets_pickle_of_states_and_optimizer(tmp_path):
    _, _, _, path = saved_one_step_later('adam_factor_1ctx', tmp_path)
    states, optimizer = unpickle(path.read_bytes())
    assert type(optimizer).__name__ == 'Adam' and optimizer.module == 'mxnet.optimizer.optimizer'
    assert optimizer.num_update == 4 and optimizer.beta1 == 0.9
    assert type(optimizer.lr_scheduler).__name__ == 'FactorScheduler'
    assert optimizer.lr_scheduler.step == 2
    assert sorted(states) == [0, 1, 2, 3] and len(states[0]) == 2
    reference = unpickle(open(os.path.join(REF, 'adam_factor_1ctx.states'), 'rb').read())[1]
    assert set(vars(optimizer)) == set(vars(reference))        # MXNet's attribute names
    assert set(vars(optimizer.lr_scheduler)) == set(vars(reference.lr_scheduler))


def test_save_then_load_states_round_trip_continues_exactly(tmp_path):
    expected = np.load(os.path.join(REF, 'expected.npz'))
    net, trainer, ctxs, path = saved_one_step_later('sgd_momentum_1ctx', tmp_path)
    net.save_parameters(str(tmp_path / 'mine.params'))
    step(net, trainer, expected['x'], expected['y'], ctxs)
    straight = {k: v.data().asnumpy() for k, v in net.collect_params().items()}

    net2, _, _ = resumed('sgd_momentum_1ctx')
    net2.load_parameters(str(tmp_path / 'mine.params'))
    trainer2 = gluon.Trainer(net2.collect_params(), 'adam', {'learning_rate': 0.3})
    trainer2.load_states(str(path))
    step(net2, trainer2, expected['x'], expected['y'], [mx.cpu(0)])
    for (k, v), (k2, v2) in zip(sorted(straight.items(), key=by_layer),
                                sorted(net2.collect_params().items(), key=by_layer)):
        np.testing.assert_array_equal(v2.data().asnumpy(), v)
