"""A checkpoint's files as one set (issue 11 item 2).

The ``.states`` file records the digest of the ``.params`` it was saved with and is
renamed into place first; loading the pair checks it. Leftover temporary files of a
killed save are removed by the next save, a replaced file keeps its mode, and every
failure to save or load names the file.
"""
import errno
import os
import signal
import stat
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import atomic

from disk_faults import full_disk_opener

SHAPE = (4, 3)


def _net():
    data = mx.sym.Variable('data')
    net = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
    return mx.sym.LinearRegressionOutput(net, name='lro')


def _trained(steps=2):
    mod = mx.mod.Module(_net(), label_names=['lro_label'])
    mod.bind(data_shapes=[('data', SHAPE)], label_shapes=[('lro_label', (SHAPE[0], 2))])
    mod.init_params(mx.init.Uniform(0.5))
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1,
                                                          'momentum': 0.9})
    _train(mod, steps)
    return mod


def _train(mod, steps):
    rng = np.random.RandomState(steps)
    for _ in range(steps):
        mod.forward(mx.io.DataBatch([mx.nd.array(rng.uniform(-1, 1, SHAPE))],
                                    [mx.nd.array(rng.uniform(-1, 1, (SHAPE[0], 2)))]),
                    is_train=True)
        mod.backward()
        mod.update()


def _resume(prefix, epoch=1):
    mod = mx.mod.Module.load(prefix, epoch, load_optimizer_states=True,
                             label_names=['lro_label'])
    mod.bind(data_shapes=[('data', SHAPE)], label_shapes=[('lro_label', (SHAPE[0], 2))])
    mod.init_optimizer(optimizer='sgd', optimizer_params={'learning_rate': 0.1,
                                                          'momentum': 0.9})
    return mod


def test_newer_params_beside_older_states_is_an_error_naming_both(tmp_path):
    prefix = str(tmp_path / 'net')
    mod = _trained()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    old_states = (tmp_path / 'net-0001.states').read_bytes()
    _train(mod, 2)
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    _resume(prefix)                                            # the matching pair loads
    (tmp_path / 'net-0001.states').write_bytes(old_states)     # what a crash could leave
    with pytest.raises(MXNetError) as info:
        _resume(prefix)
    assert 'net-0001.states' in str(info.value) and 'net-0001.params' in str(info.value)


def test_states_are_renamed_into_place_before_the_params(tmp_path, monkeypatch):
    order = []
    real_replace = atomic.os.replace

    def recording_replace(src, dst):
        order.append(os.path.basename(dst))
        real_replace(src, dst)

    mod = _trained()
    monkeypatch.setattr(atomic.os, 'replace', recording_replace)
    mod.save_checkpoint(str(tmp_path / 'net'), 3, save_optimizer_states=True)
    assert order == ['net-symbol.json', 'net-0003.states', 'net-0003.params']


def test_a_crash_between_the_two_renames_is_caught_at_load(tmp_path, monkeypatch):
    prefix = str(tmp_path / 'net')
    mod = _trained()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    _train(mod, 2)
    real_replace = atomic.os.replace

    def crash_on_params(src, dst):
        if dst.endswith('.params'):
            raise OSError(errno.ENOSPC, 'No space left on device')
        real_replace(src, dst)

    monkeypatch.setattr(atomic.os, 'replace', crash_on_params)
    with pytest.raises(MXNetError, match='net-0001.params.*No space left'):
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    monkeypatch.undo()
    with pytest.raises(MXNetError, match='net-0001.states belongs to other parameters'):
        _resume(prefix)
    assert sorted(os.listdir(tmp_path)) == ['net-0001.params', 'net-0001.states',
                                            'net-symbol.json']


def _full_disk(monkeypatch, suffix):
    monkeypatch.setattr(atomic.os, 'fdopen', full_disk_opener(os.fdopen, suffix))


@pytest.mark.skipif(not os.path.exists('/proc/self/fd'), reason='needs /proc')
@pytest.mark.parametrize('which', ['symbol.json', 'states', 'params'])
def test_a_full_disk_names_the_file_and_keeps_the_previous_set(tmp_path, monkeypatch, which):
    prefix = str(tmp_path / 'net')
    mod = _trained()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    before = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    _train(mod, 2)
    _full_disk(monkeypatch, which)
    with pytest.raises(MXNetError, match=r'net-(0001\.)?%s: .*No space left' % which):
        mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    monkeypatch.undo()
    after = {name: (tmp_path / name).read_bytes() for name in os.listdir(tmp_path)}
    assert after == before      # nothing renamed, no temporary file left
    _resume(prefix)


@pytest.mark.skipif(not os.path.exists('/proc/self/fd'), reason='needs /proc')
def test_save_optimizer_states_on_a_full_disk_names_the_file(tmp_path, monkeypatch):
    mod = _trained()
    _full_disk(monkeypatch, 'states')
    with pytest.raises(MXNetError, match='alone.states: cannot write the file'):
        mod.save_optimizer_states(str(tmp_path / 'alone.states'))


def test_loading_missing_or_damaged_states_names_the_file(tmp_path):
    prefix = str(tmp_path / 'net')
    _trained().save_checkpoint(prefix, 1, save_optimizer_states=True)
    (tmp_path / 'net-0001.states').write_bytes(b'SYMMODST garbage')
    with pytest.raises(MXNetError, match='net-0001.states'):
        _resume(prefix)
    os.remove(tmp_path / 'net-0001.states')
    with pytest.raises(MXNetError, match='net-0001.states'):
        _resume(prefix)


# ---- temporary files and modes ------------------------------------------------------------
def test_leftover_temporary_files_are_removed_by_the_next_save(tmp_path):
    target = tmp_path / 'net-0001.params'
    leftovers = [tmp_path / '.net-0001.params.0123456789ab.tmp',
                 tmp_path / '.net-0001.params.ba9876543210.tmp']
    for path in leftovers:
        path.write_bytes(b'x' * 1000)
    other = tmp_path / '.other-0001.params.0123456789ab.tmp'    # another target's: kept
    other.write_bytes(b'y')
    mx.nd.save(str(target), {'a': mx.nd.ones((2,))})
    assert sorted(os.listdir(tmp_path)) == [other.name, target.name]


WRITER = textwrap.dedent('''
    import sys, time
    from symmod.formats.atomic import atomic_open
    with atomic_open(sys.argv[1], 'wb') as f:
        f.write(b'partial')
        f.flush()
        print('writing', flush=True)
        time.sleep(60)
''')


def _writer(target):
    proc = subprocess.Popen([sys.executable, '-c', WRITER, str(target)],
                            stdout=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == 'writing'
    return proc


def test_a_killed_writer_leaves_a_temporary_file_that_the_next_save_removes(tmp_path):
    target = tmp_path / 'net-0001.params'
    proc = _writer(target)
    try:
        live = [n for n in os.listdir(tmp_path) if n.endswith('.tmp')]
        assert len(live) == 1
        mx.nd.save(str(target), [mx.nd.ones((1,))])     # a live writer's file is kept
        assert [n for n in os.listdir(tmp_path) if n.endswith('.tmp')] == live
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    assert [n for n in os.listdir(tmp_path) if n.endswith('.tmp')] == live
    mx.nd.save(str(target), [mx.nd.ones((1,))])
    assert os.listdir(tmp_path) == [target.name]


@pytest.mark.skipif(os.name != 'posix', reason='POSIX permission bits')
def test_overwriting_keeps_the_file_mode(tmp_path):
    prefix = str(tmp_path / 'net')
    mod = _trained()
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    for name in ('net-0001.params', 'net-0001.states', 'net-symbol.json'):
        os.chmod(tmp_path / name, 0o600)
    time.sleep(0.01)
    mod.save_checkpoint(prefix, 1, save_optimizer_states=True)
    for name in ('net-0001.params', 'net-0001.states', 'net-symbol.json'):
        assert stat.S_IMODE(os.stat(tmp_path / name).st_mode) == 0o600, name


@pytest.mark.skipif(atomic.fcntl is None, reason='POSIX locks')
def test_a_file_system_without_locks_still_saves_and_removes_nothing(tmp_path, monkeypatch):
    def no_locks(fd, operation):
        raise OSError(errno.ENOLCK, 'No locks available')

    monkeypatch.setattr(atomic.fcntl, 'flock', no_locks)
    leftover = tmp_path / '.a.params.0123456789ab.tmp'
    leftover.write_bytes(b'x')
    mx.nd.save(str(tmp_path / 'a.params'), [mx.nd.ones((2,))])
    assert sorted(os.listdir(tmp_path)) == [leftover.name, 'a.params']
    np.testing.assert_array_equal(mx.nd.load(str(tmp_path / 'a.params'))[0].asnumpy(), [1, 1])
