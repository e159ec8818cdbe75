"""mx.viz.print_summary prints MXNet's table."""
import json
import pathlib
import re

import pytest

import symmod as mx
from viz_cases import CASES, PLOTS

REF = (pathlib.Path(__file__).resolve().parents[1] / 'data' / 'viz_summary_reference.txt')
EXPECTED = dict(re.findall(r'### (\w+)\n(.*?)(?=### |\Z)', REF.read_text(), re.S))


def _printed(capsys, net, shape, kwargs):
    mx.viz.print_summary(net, shape=shape, **kwargs)
    return capsys.readouterr().out


@pytest.mark.parametrize('name, build, shape, kwargs', CASES, ids=[c[0] for c in CASES])
def test_table_is_mxnets(capsys, name, build, shape, kwargs):
    with mx.name.NameManager():
        net = build(mx)
    assert _printed(capsys, net, shape, kwargs) == EXPECTED[name]


def test_counts_are_exact_where_mxnet_guesses(capsys):
    """MXNet counts a FullyConnected's weight from its input's channel dim only; with
    shapes symmod counts every parameter input (here 2x3x3 data flattened to 18)."""
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    net = mx.sym.LeakyReLU(net, act_type='prelu', name='prelu')
    out = _printed(capsys, net, {'data': (1, 2, 3, 3)}, {})
    assert re.search(r'fc\(FullyConnected\) +4 +76 ', out)
    assert re.search(r'prelu\(LeakyReLU\) +4 +4 ', out)     # gamma, one per channel
    assert 'Total params: 80\n' in out


def test_errors():
    with pytest.raises(TypeError, match='symbol must be Symbol'):
        mx.viz.print_summary('net')


PLOT_REF = json.loads((REF.parent / 'viz_plot_reference.json').read_text())


@pytest.mark.parametrize('name, build, kwargs', PLOTS, ids=[c[0] for c in PLOTS])
def test_plot_network_source_is_mxnets(name, build, kwargs):
    pytest.importorskip('graphviz')
    with mx.name.NameManager():
        net = build(mx)
    assert mx.viz.plot_network(net, **kwargs).source == PLOT_REF[name]


def test_plot_network_warns_on_repeated_names():
    pytest.importorskip('graphviz')
    net = mx.sym.var('x') + mx.sym.var('x')
    with pytest.warns(RuntimeWarning, match='Repeated names: x'):
        mx.viz.plot_network(net)
    with pytest.raises(TypeError, match='symbol must be a Symbol'):
        mx.viz.plot_network(None)
