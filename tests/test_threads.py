"""The thread budget: BLAS, numba and executor pools sized together, narrowed under load."""
import os
import subprocess
import sys

import numpy as np
import pytest
import threadpoolctl

import symmod as mx
from symmod import threads


def _blas_threads():
    return [lib['num_threads'] for lib in threadpoolctl.threadpool_info()
            if lib['user_api'] == 'blas']


@pytest.fixture
def budget_state(monkeypatch):
    """A fresh budget state, adaptation driven by the test; BLAS's and numba's threads
    are restored afterwards."""
    import numba
    numba_before = numba.get_num_threads()
    blas_before = threadpoolctl.threadpool_info()
    state = threads._Budget()
    state.budget = 2
    state.width = 2
    state.adaptive = True
    monkeypatch.setattr(threads, '_STATE', state)
    yield state
    numba.set_num_threads(numba_before)
    threadpoolctl.threadpool_limits({lib['prefix']: lib['num_threads'] for lib in blas_before})


class _FakeMachine:
    """Reports the given cores' worth of other processes' CPU use, one per check."""
    ncpu = 2

    def __init__(self, loads):
        self.loads = list(loads)

    def others_cores(self):
        return self.loads.pop(0)


def _check(state, times=1):
    for _ in range(times):
        state.next_check = 0.0
        threads.width()


def test_width_falls_at_once_under_load_and_rises_after_two_free_checks(budget_state):
    budget_state.machine = _FakeMachine([1.9, 0.0, 0.0, 1.2])
    _check(budget_state)
    assert threads.width() == 1
    _check(budget_state)
    assert threads.width() == 1          # one free look is not enough
    _check(budget_state)
    assert threads.width() == 2
    _check(budget_state)
    assert threads.width() == 1


def test_width_stays_within_budget_and_above_zero(budget_state):
    budget_state.budget = 1
    budget_state.width = 1
    budget_state.machine = _FakeMachine([0.0, 0.0, 0.0, 5.0])
    _check(budget_state, 3)
    assert threads.width() == 1
    _check(budget_state)
    assert threads.width() == 1


def test_no_adaptation_when_turned_off(budget_state):
    budget_state.adaptive = False
    budget_state.machine = _FakeMachine([2.0])
    _check(budget_state)
    assert threads.width() == 2


def test_checks_at_most_every_interval(budget_state):
    budget_state.machine = _FakeMachine([2.0])
    _check(budget_state)            # consumes the only reading
    for _ in range(100):
        threads.width()             # within INTERVAL: no further reading (pop would fail)
    assert threads.width() == 1


def test_apply_sizes_blas_and_numba(budget_state):
    import numba
    budget_state.width = 1
    budget_state.next_check = float('inf')
    assert threads.apply() == 1
    assert set(_blas_threads()) == {1}
    assert numba.get_num_threads() == 1
    budget_state.width = 2
    assert threads.apply(share=2) == 1
    assert threads.apply() == 2
    assert set(_blas_threads()) == {2}
    assert threads.info()['blas'] == 2


def test_executor_forward_applies_the_width(budget_state):
    budget_state.width = 1
    budget_state.next_check = float('inf')
    exe = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=3).simple_bind(mx.cpu(), x=(2, 4))
    exe.forward()
    assert set(_blas_threads()) == {1}


def test_optimizer_runs_serially_at_width_one(budget_state, monkeypatch):
    from symmod.optimizer.kernels import dispatch
    budget_state.width = 1
    budget_state.next_check = float('inf')
    monkeypatch.setattr(dispatch, 'PARALLEL_MIN', 0)
    calls = []
    serial, parallel = dispatch._cpu_kernels('sgd')
    monkeypatch.setattr(dispatch, '_cpu_kernels', lambda rule: (
        lambda *a: calls.append('serial') or serial(*a),
        lambda *a: calls.append('parallel') or parallel(*a)))
    w, g = np.ones(10, np.float32), np.ones(10, np.float32)
    dispatch.run('sgd', [[w], [g]], [[0.1, 0.0]], (1.0, -1.0, False))
    assert calls == ['serial']
    np.testing.assert_allclose(w, 0.9)


def test_set_budget_checks_its_argument(budget_state):
    with pytest.raises(ValueError, match='at least 1'):
        threads.set_budget(0)
    threads.set_budget(1)
    assert threads.budget() == 1 and threads.width() == 1


def test_measures_other_processes_from_proc_stat():
    if not os.path.exists('/proc/stat'):
        pytest.skip('no /proc/stat')
    machine = threads._Machine()
    others = machine.others_cores()
    assert others is None or 0.0 <= others <= machine.ncpu + 1e-6


@pytest.mark.parametrize('name', ['OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS'])
def test_environment_caps_the_budget(name):
    env = dict(os.environ, **{name: '1'})
    out = subprocess.run([sys.executable, '-c', 'import symmod; print(symmod.threads.budget())'],
                         env=env, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip().splitlines()[-1] == '1'


@pytest.mark.parametrize('cores,local,caps,expected', [
    (4, None, {}, 4),                           # no launcher: every core
    (4, '2', {}, 2),                            # 2 ranks on the host: half each
    (2, '4', {}, 1),                            # more ranks than cores: at least one
    (16, '3', {}, 5),
    (4, '2', {'OMP_NUM_THREADS': '3'}, 3),      # the user's setting wins
    (4, '2', {'NUMBA_NUM_THREADS': '8'}, 4),    # ... capped by the cores
])
@pytest.mark.parametrize('variable', ['OMPI_COMM_WORLD_LOCAL_SIZE', 'MPI_LOCALNRANKS'])
def test_local_ranks_of_a_job_share_the_cores(monkeypatch, cores, local, caps, expected,
                                              variable):
    for name in threads._ENV_CAPS + threads._LOCAL_RANKS:
        monkeypatch.delenv(name, raising=False)
    if local is not None:
        monkeypatch.setenv(variable, local)
    for name, value in caps.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(threads, '_cores', lambda: cores)
    assert threads._env_budget() == expected


def test_group_runs_contexts_one_after_another_at_width_one(budget_state):
    budget_state.width = 1
    budget_state.next_check = float('inf')
    data = mx.sym.var('data')
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=4), name='softmax')
    mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind([('data', (8, 5))], [('softmax_label', (8,))])
    mod.init_params()
    seen = []
    mod._exec_group._each(lambda i, exe: seen.append((i, exe._thread_share)))
    assert seen == [(0, 1), (1, 1)]
    budget_state.width = 2
    seen.clear()
    mod._exec_group._each(lambda i, exe: seen.append((i, exe._thread_share)))
    assert sorted(seen) == [(0, 2), (1, 2)]


@pytest.mark.parametrize('loadavg, expected', [(9.0, 1), (0.3, 2)])
def test_first_look_uses_the_load_average(budget_state, monkeypatch, loadavg, expected):
    """Before an interval has been measured the load average decides: work done before
    the second check (an eager forward pass) must not start two BLAS threads on a busy
    machine."""
    monkeypatch.setattr(threads, '_Machine', lambda: _FakeMachine([]))
    monkeypatch.setattr(threads.os, 'getloadavg', lambda: (loadavg, loadavg, loadavg))
    _check(budget_state)
    assert threads.width() == expected


def test_serial_blas_leaves_blas_at_one_thread_until_the_next_apply(budget_state):
    budget_state.adaptive = False
    threads.apply()
    assert set(_blas_threads()) == {2}
    with threads.serial_blas():
        assert set(_blas_threads()) == {1}
        with threads.serial_blas():
            assert set(_blas_threads()) == {1}
    # the rest of the pass stays at one thread (no spinning BLAS threads woken again)
    assert set(_blas_threads()) == {1}
    assert threads.apply() == 2
    assert set(_blas_threads()) == {2}
    assert threads.info()['blas'] == 2


@pytest.mark.parametrize('kernel, stride, pad, channels', [
    ((3, 3), (1, 1), (1, 1), 32),       # Winograd products
    ((3, 3), (2, 2), (0, 0), 8),        # im2col and GEMM (padded ones: conv_strided.py)
    ((1, 1), (2, 2), (0, 0), 8),        # pointwise products
])
def test_convolution_products_run_blas_at_one_thread(budget_state, monkeypatch, kernel,
                                                     stride, pad, channels):
    # spinning BLAS threads took the cores from the convolutions' numba loops
    from symmod.ops import common, conv, conv_pointwise, conv_winograd
    budget_state.adaptive = False
    seen = []
    real = np.matmul

    def spy(*args, **kwargs):
        seen.append(tuple(_blas_threads()))
        return real(*args, **kwargs)

    sym = mx.sym.Convolution(mx.sym.Variable('data'), kernel=kernel, stride=stride, pad=pad,
                             num_filter=channels, no_bias=True)
    exe = sym.simple_bind(mx.cpu(), data=(2, channels, 8, 8))
    # compile the numba kernels first: compiled while the modules' np is the spy class
    # below (a cold cache: a fresh clone, or a changed source file), they fail to type
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(exe.outputs[0].shape))
    fake_np = type('np', (), {name: getattr(np, name) for name in dir(np)
                              if not name.startswith('__')})
    fake_np.matmul = staticmethod(spy)
    for module in (common, conv, conv_pointwise, conv_winograd):
        monkeypatch.setattr(module, 'np', fake_np)
    # Winograd's products run inside its numba kernels (blas_numba), where numpy's BLAS
    # is callable from numba
    for name in ('_forward_blocks', '_weight_grad_blocks'):
        kernel = getattr(conv_winograd, name)

        def recorded(*args, _kernel=kernel):
            seen.append(tuple(_blas_threads()))
            return _kernel(*args)
        monkeypatch.setattr(conv_winograd, name, recorded)
    exe.forward(is_train=True)
    exe.backward(mx.nd.ones(exe.outputs[0].shape))
    assert seen and all(set(s) == {1} for s in seen)
    threads.apply()
    assert set(_blas_threads()) == {2}


_SCIPY_BLAS_PROBE = '''
import numpy as np, threadpoolctl, symmod as mx
mx.threads._STATE.adaptive = False
mx.threads.set_budget(1)
mx.threads.apply()
# one sample: the fused RNN runs its time loop in numba, whose np.dot calls scipy's BLAS
x = mx.nd.ones((3, 1, 4))
params = mx.nd.ones((4 * 5 * (4 + 5) + 8 * 5,)) * 0.1
state = mx.nd.zeros((1, 1, 5))
mx.nd.RNN(x, params, state, state, state_size=5, num_layers=1, mode='lstm').asnumpy()
libs = [i for i in threadpoolctl.threadpool_info() if i['user_api'] == 'blas']
# numpy's BLAS and scipy's (loaded at the first sizing, or by numba), both sized
print(len(libs) >= 2, sorted(i['num_threads'] for i in libs))
'''


def test_blas_loaded_by_the_rnn_time_loop_follows_the_thread_budget():
    """scipy's OpenBLAS (numba's np.dot) must be sized too, not left at its own default
    width spinning on a busy machine."""
    env = {k: v for k, v in os.environ.items()
           if k not in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS')}
    out = subprocess.run([sys.executable, '-c', _SCIPY_BLAS_PROBE], env=env, timeout=120,
                         capture_output=True, text=True, check=True).stdout.split('\n')[-2]
    assert out == 'True [1, 1]'
