"""Writes are atomic: a failure at any point leaves the old file and no temporary file."""
import os

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import atomic, params


def old_checkpoint(tmp_path):
    path = tmp_path / 'model-0001.params'
    mx.nd.save(str(path), {'arg:w': mx.nd.ones((3, 3))})
    return path, path.read_bytes()


def test_atomic_write_bytes_and_text(tmp_path):
    target = tmp_path / 'out.bin'
    atomic.atomic_write(str(target), b'\x00\x01binary')
    assert target.read_bytes() == b'\x00\x01binary'
    atomic.atomic_write(target, 'text ∑\n')
    assert target.read_bytes() == 'text ∑\n'.encode('utf-8')
    assert os.listdir(tmp_path) == ['out.bin']


def test_permissions_follow_the_umask(tmp_path):
    target = tmp_path / 'perm.bin'
    atomic.atomic_write(str(target), b'x')
    umask = os.umask(0o022)
    os.umask(umask)
    assert (target.stat().st_mode & 0o777) == (0o666 & ~umask)


def test_atomic_open_text_mode_and_bad_mode(tmp_path):
    with atomic.atomic_open(tmp_path / 'a.json', 'w') as f:
        f.write('{"a": 1}')
    assert (tmp_path / 'a.json').read_text() == '{"a": 1}'
    with pytest.raises(ValueError, match='mode'):
        with atomic.atomic_open(tmp_path / 'b', 'ab'):
            pass
    assert os.listdir(tmp_path) == ['a.json']


def test_failure_inside_the_block_keeps_the_old_file(tmp_path):
    target = tmp_path / 'keep.txt'
    target.write_bytes(b'old')
    with pytest.raises(RuntimeError):
        with atomic.atomic_open(target, 'wb') as f:
            f.write(b'new partial')
            raise RuntimeError('disk full')
    assert target.read_bytes() == b'old'
    assert os.listdir(tmp_path) == ['keep.txt']


def test_encoder_failure_midway_keeps_the_old_checkpoint(tmp_path, monkeypatch):
    path, before = old_checkpoint(tmp_path)
    real = params._record_parts
    calls = []

    def fail_on_third(array, magic):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError('simulated failure while writing record 3')
        return real(array, magic)

    monkeypatch.setattr(params, '_record_parts', fail_on_third)
    new = {'arg:%d' % i: mx.nd.zeros((100, 100)) for i in range(5)}
    with pytest.raises(RuntimeError, match='record 3'):
        mx.nd.save(str(path), new)
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_keyboard_interrupt_midway_cleans_up(tmp_path, monkeypatch):
    path, before = old_checkpoint(tmp_path)

    def interrupted(array, magic):
        raise KeyboardInterrupt

    monkeypatch.setattr(params, '_record_parts', interrupted)
    with pytest.raises(KeyboardInterrupt):
        mx.nd.save(str(path), [mx.nd.ones(2)])
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_rename_failure_keeps_the_old_file(tmp_path, monkeypatch):
    path, before = old_checkpoint(tmp_path)

    def no_replace(src, dst):
        raise OSError(28, 'No space left on device')

    monkeypatch.setattr(atomic.os, 'replace', no_replace)
    with pytest.raises(MXNetError, match='model-0001.params'):
        mx.nd.save(str(path), [mx.nd.zeros((2, 2))])
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_fsync_failure_keeps_the_old_file(tmp_path, monkeypatch):
    path, before = old_checkpoint(tmp_path)

    def no_fsync(fd):
        raise OSError(5, 'Input/output error')

    monkeypatch.setattr(atomic.os, 'fsync', no_fsync)
    with pytest.raises(MXNetError, match='Input/output error'):
        mx.nd.save(str(path), [mx.nd.zeros((2, 2))])
    assert path.read_bytes() == before
    assert os.listdir(tmp_path) == [path.name]


def test_successful_save_replaces_the_file(tmp_path):
    path, _ = old_checkpoint(tmp_path)
    mx.nd.save(str(path), {'arg:w': mx.nd.zeros((2,))})
    np.testing.assert_array_equal(mx.nd.load(str(path))['arg:w'].asnumpy(), np.zeros(2))
    assert os.listdir(tmp_path) == [path.name]


def test_writing_through_a_symlink_updates_its_target(tmp_path):
    real = tmp_path / 'real.params'
    link = tmp_path / 'latest.params'
    mx.nd.save(str(real), [mx.nd.ones(1)])
    link.symlink_to(real.name)
    mx.nd.save(str(link), [mx.nd.zeros(3)])
    assert link.is_symlink()
    np.testing.assert_array_equal(mx.nd.load(str(real))[0].asnumpy(), np.zeros(3))


def test_a_long_file_name_still_gets_a_valid_temporary_name(tmp_path):
    target = tmp_path / ('x' * 250)
    atomic.atomic_write(target, b'data')
    assert target.read_bytes() == b'data'
    assert os.listdir(tmp_path) == [target.name]
