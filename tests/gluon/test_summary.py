"""Block.summary: the table printed for the networks of tests/gluon/summary_cases.py
equals, character for character, what MXNet 1.9.1 printed
(tests/data/gluon_layers_summary.txt)."""
import os
import re

import pytest

import symmod as mx
from symmod.gluon import nn

import summary_cases

DATA = os.path.join(os.path.dirname(__file__), '..', 'data')


def expected_tables():
    with open(os.path.join(DATA, 'gluon_layers_summary.txt')) as f:
        text = f.read()
    parts = re.split(r'^#### (\w+)\n', text, flags=re.M)[1:]
    return dict(zip(parts[::2], parts[1::2]))


def test_cnn_summary_matches_mxnet(capsys):
    # built in a fresh name scope so that its prefixes are MXNet's in a new process
    with mx.name.NameManager():
        net, inputs = summary_cases.cnn(mx)
    net.summary(*inputs)
    assert capsys.readouterr().out == expected_tables()['cnn']
    # the hooks are gone afterwards: a second call prints the same table
    assert all(not block._forward_hooks for block in net._children.values())
    net.summary(*inputs)
    assert capsys.readouterr().out == expected_tables()['cnn']


def test_multiple_inputs_and_nested_outputs_match_mxnet(capsys):
    block, inputs = summary_cases.two_inputs(mx)
    block.summary(*inputs)
    assert capsys.readouterr().out == expected_tables()['two_inputs']


def test_sequential_with_deferred_init_matches_mxnet(capsys):
    seq, inputs = summary_cases.sequential(mx)
    seq.summary(*inputs)
    assert capsys.readouterr().out == expected_tables()['sequential']


def test_shared_layer_counts_and_nontrainable_params(capsys):
    """A layer used twice gives two rows per call and its
    parameters count as shared; BatchNorm's running statistics are not trainable (the
    numbers are what MXNet 1.9.1 prints for this network)."""
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            dense = nn.Dense(4, in_units=4)
            net.add(dense, nn.BatchNorm(in_channels=4), dense)
    net.initialize()
    net.summary(mx.nd.ones((3, 4)))
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines[3:-8]]
    assert [r[0] for r in rows] == ['Input', 'Dense-1', 'Dense-2', 'BatchNorm-3', 'Dense-4',
                                    'Dense-5']
    assert [int(r[-1]) for r in rows] == [0, 20, 20, 16, 20, 20]
    assert lines[-7:-1] == ['Parameters in forward computation graph, duplicate included',
                            '   Total params: 96', '   Trainable params: 88',
                            '   Non-trainable params: 8',
                            'Shared params in forward computation graph: 60',
                            'Unique parameters in model: 36']


def test_hybridized_block_is_refused_like_mxnet():
    with mx.name.NameManager():
        net = nn.HybridSequential()
        with net.name_scope():
            net.add(nn.Conv2D(4, 3, in_channels=2, activation='relu'), nn.Flatten())
    net.initialize()
    net.hybridize()
    expected = expected_tables()['hybridized_error'].strip()
    with pytest.raises(AssertionError) as err:
        net.summary(mx.nd.ones((2, 2, 10, 10)))
    assert str(err.value) == expected
    # the hooks registered before the refusal were removed again
    assert all(not block._forward_hooks for block in net._children.values())
