"""``python -m symmod`` prints the version, features, thread settings and locations."""
import os
import subprocess
import sys

import numba

import symmod as mx
from symmod.__main__ import main

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_prints_version_features_threads_and_locations(capsys):
    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith('symmod %s (Apache MXNet 1.x API) on Python ' % mx.__version__)
    features = mx.runtime.Features()
    enabled = [line for line in out.splitlines() if line.strip().startswith('enabled')][0]
    assert sorted(enabled.split(None, 1)[1].split(', ')) == sorted(
        name for name in features if features.is_enabled(name))
    assert '  numba threads' in out and str(numba.get_num_threads()) in out
    assert 'OMP_WAIT_POLICY' in out
    for path in (os.path.join(ROOT, 'examples', 'mnist', 'train_mnist.py'),
                 os.path.join(ROOT, 'examples', 'mnist', 'data'),
                 os.path.join(ROOT, 'examples', 'rnn', 'lstm_bucketing.py')):
        assert path in out and os.path.exists(path)
    assert 'compiled kernels' in out


def test_runs_as_a_module():
    result = subprocess.run([sys.executable, '-m', 'symmod'], capture_output=True, text=True,
                            timeout=120, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('symmod %s' % mx.__version__)
    assert 'where things are:' in result.stdout


def _environment_after_import(env):
    code = ('import os, symmod; '
            'print(os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"))')
    base = {k: v for k, v in os.environ.items()
            if k not in ('OMP_WAIT_POLICY', 'GOMP_SPINCOUNT')}
    base.update(env)
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120, cwd=ROOT, env=base)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


def test_import_sets_a_short_openmp_spin_unless_the_user_chose_a_wait_policy():
    assert _environment_after_import({}) == ['PASSIVE', '2000']
    assert _environment_after_import({'GOMP_SPINCOUNT': '50'}) == ['PASSIVE', '50']
    assert _environment_after_import({'OMP_WAIT_POLICY': 'ACTIVE'}) == ['ACTIVE', 'None']
