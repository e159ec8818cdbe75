"""Block.load reads ``-model.json`` as data it checks (issue 11 item 7): a file that does
not describe the block is an MXNetError naming the file and the entry, at load time, and
Block.save writes the file atomically (mode kept, a full disk named)."""
import json
import os
import pathlib
import random
import shutil

import numpy as np
import pytest

import symmod as mx
from symmod.base import MXNetError
from symmod.formats import atomic

from block_save_cases import MODELS, model_input
from disk_faults import full_disk_opener

SAVED = pathlib.Path(__file__).resolve().parent.parent / 'data' / 'gluon' / 'block_save'
WRONG = [None, 5, -1, 2 ** 70, 1.5, 'x', '', [], {}, [5], {'a': 1}, True, '[[[', [[[[0]]]]]


def _paths(obj, prefix=()):
    if prefix:
        yield prefix
    items = obj.items() if isinstance(obj, dict) else \
        enumerate(obj) if isinstance(obj, list) else ()
    for key, value in items:
        yield from _paths(value, prefix + (key,))


def _write_case(tmp_path, name, doc):
    prefix = str(tmp_path / 'm')
    pathlib.Path(prefix + '-model.json').write_text(json.dumps(doc))
    shutil.copy(SAVED / (name + '-model.params'), prefix + '-model.params')
    return prefix


def _load_and_run(name, prefix):
    net = MODELS[name](mx)
    net.load(prefix)
    return net(mx.nd.array(model_input()))


def test_only_mxnet_errors_escape_from_damaged_model_files(tmp_path):
    """Values replaced by wrong types and entries removed, seeded; before: 200 of 302
    cases raised KeyError, TypeError, AttributeError, ValueError, RecursionError or
    'Unknown input' AssertionErrors at the first forward."""
    rng = random.Random(11)
    escaped = []
    for name in sorted(MODELS):
        base = json.loads((SAVED / (name + '-model.json')).read_text())
        paths = list(_paths(base))
        for _ in range(120):
            doc = json.loads(json.dumps(base))
            path = rng.choice(paths)
            parent = doc
            for key in path[:-1]:
                parent = parent[key]
            if isinstance(parent, dict) and rng.random() < 0.15:
                del parent[path[-1]]
            else:
                parent[path[-1]] = rng.choice(WRONG)
            try:
                net = MODELS[name](mx)
                net.load(_write_case(tmp_path, name, doc))
            except MXNetError as err:
                assert 'm-model.' in str(err), err
            except AssertionError as err:
                # MXNet's load_parameters error: a renamed block's Parameters are not in
                # the .params file (it names the file)
                assert str(err).startswith("Parameter '") and 'is missing in file' in str(err)
            except Exception as err:            # pylint: disable=broad-except
                escaped.append((path, type(err).__name__, str(err)[:80]))
            else:
                try:
                    net(mx.nd.array(model_input()))
                except MXNetError:
                    pass
                except ValueError as err:
                    # a valid saved input structure other than this call's: MXNet's error
                    assert 'argument structure of HybridBlock does not match' in str(err)
                except Exception as err:        # pylint: disable=broad-except
                    escaped.append((path, type(err).__name__, str(err)[:80]))
    assert not escaped, escaped[:10]


def _hybrid_doc():
    return json.loads((SAVED / 'hybrid-model.json').read_text())


def test_a_graph_reading_an_unknown_parameter_is_refused_at_load(tmp_path):
    doc = _hybrid_doc()
    top = doc['hybridsequential0']
    top['symbol'] = top['symbol'].replace('hybridsequential0_dense1_weight', 'elsewhere_weight')
    with pytest.raises(MXNetError, match=r"m-model\.json: the graph of .*hybridsequential0.* "
                                         r"reads elsewhere_weight"):
        MODELS['hybrid'](mx).load(_write_case(tmp_path, 'hybrid', doc))


@pytest.mark.parametrize('key, value, message', [
    ('in_format', [0, 0], 'a format of 1 inputs'),
    ('out_format', [0, 0], "a format of the symbol's 1 outputs"),
    ('inputs', [], 'distinct variables'),
    ('symbol', 5, 'symbol JSON text'),
    ('hybridized', 'yes', 'true or false'),
    ('orig_name', 7, 'a block name'),
])
def test_entries_of_the_wrong_kind_name_the_file_and_entry(tmp_path, key, value, message):
    doc = _hybrid_doc()
    doc['hybridsequential0'][key] = value
    with pytest.raises(MXNetError) as info:
        MODELS['hybrid'](mx).load(_write_case(tmp_path, 'hybrid', doc))
    text = str(info.value)
    assert 'm-model.json' in text and "['hybridsequential0']" in text and message in text


def test_two_children_under_one_attribute_name_are_refused(tmp_path):
    # before: one child silently disappeared from the block
    doc = _hybrid_doc()
    children = doc['hybridsequential0']['children']
    for child in children:
        children[child] = '0'
    with pytest.raises(MXNetError, match='distinct attribute names'):
        MODELS['hybrid'](mx).load(_write_case(tmp_path, 'hybrid', doc))


@pytest.mark.parametrize('content', [None, b'\xff\xfe{', b'[' * 100000])
def test_missing_undecodable_or_deep_files_are_mxnet_errors(tmp_path, content):
    prefix = str(tmp_path / 'm')
    if content is not None:
        pathlib.Path(prefix + '-model.json').write_bytes(content)
    with pytest.raises(MXNetError, match='m-model.json'):
        MODELS['plain'](mx).load(prefix)


def _saved_net():
    net = MODELS['hybrid'](mx)
    net.initialize()
    net.hybridize()
    net(mx.nd.array(model_input()))
    return net


def test_save_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    net = _saved_net()
    prefix = str(tmp_path / 'net')
    net.save(prefix)
    os.chmod(prefix + '-model.json', 0o600)
    net.save(prefix)
    assert os.stat(prefix + '-model.json').st_mode & 0o777 == 0o600
    assert sorted(os.listdir(tmp_path)) == ['net-model.json', 'net-model.params']
    np.testing.assert_allclose(_load_and_run('hybrid', prefix).asnumpy(),
                               net(mx.nd.array(model_input())).asnumpy(), rtol=1e-6)


@pytest.mark.skipif(not os.path.exists('/proc/self/fd'), reason='needs /proc')
def test_a_full_disk_names_the_file_and_keeps_the_previous_one(tmp_path, monkeypatch):
    net = _saved_net()
    prefix = str(tmp_path / 'net')
    net.save(prefix)
    before = pathlib.Path(prefix + '-model.json').read_bytes()

    # a full disk whether the file is written in place or through a temporary file
    monkeypatch.setattr(atomic.os, 'fdopen', full_disk_opener(os.fdopen, 'net-model.json'))
    monkeypatch.setattr('builtins.open', full_disk_opener(open, 'net-model.json'))
    with pytest.raises(MXNetError, match=r'net-model\.json: cannot write the file: .*No space'):
        net.save(prefix)
    monkeypatch.undo()
    assert pathlib.Path(prefix + '-model.json').read_bytes() == before
    assert sorted(os.listdir(tmp_path)) == ['net-model.json', 'net-model.params']
