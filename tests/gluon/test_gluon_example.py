"""examples/mnist/train_gluon.py trains the MLP on the bundled digits (one short epoch)."""
import importlib.util
import logging
import os

import pytest

import symmod as mx

EXAMPLE = os.path.join(os.path.dirname(__file__), '..', '..', 'examples', 'mnist',
                       'train_gluon.py')


@pytest.fixture(scope='module')
def example():
    spec = importlib.util.spec_from_file_location('train_gluon_example', EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
@pytest.mark.parametrize('extra', [[], ['--num-cpus', '2', '--hybridize']])
def test_one_epoch_learns(example, caplog, extra):
    args = example.parse_args(['--num-epochs', '1'] + extra)
    with caplog.at_level(logging.INFO):
        net = example.train(args)
    lines = [r.getMessage() for r in caplog.records]
    assert any(line.startswith('Epoch[0] Train-accuracy=') for line in lines)
    assert lines[0].startswith('data loaded from ')
    assert sum(line.startswith('first batch done after ') for line in lines) == 1
    val = [line for line in lines if line.startswith('Epoch[0] Validation-accuracy=')]
    assert len(val) == 1 and float(val[0].split('=')[1]) > 0.85
    contexts = [mx.cpu(i) for i in range(args.num_cpus)]
    first = next(iter(net.collect_params().values()))
    assert first.list_ctx() == contexts
