"""Write tests/data/viz_summary_reference.txt (what mx.viz.print_summary prints) and
tests/data/viz_plot_reference.json (mx.viz.plot_network(...).source) from real MXNet 1.9.1
for the networks of tests/symbol/viz_cases.py. Run with /work/mxvenv/bin/python (with the
graphviz package installed there, the same version as in symmod's test environment)."""
import contextlib
import io
import json
import pathlib
import sys

import mxnet as mx

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2] / 'symbol'))
from viz_cases import CASES, PLOTS  # noqa: E402

blocks = []
for name, build, shape, kwargs in CASES:
    out = io.StringIO()
    with mx.name.NameManager():
        net = build(mx)
    with contextlib.redirect_stdout(out):
        mx.viz.print_summary(net, shape=shape, **kwargs)
    blocks.append('### %s\n%s' % (name, out.getvalue()))
(HERE.parents[1] / 'viz_summary_reference.txt').write_text(''.join(blocks))

sources = {}
for name, build, kwargs in PLOTS:
    with mx.name.NameManager():
        net = build(mx)
    sources[name] = mx.viz.plot_network(net, **kwargs).source
(HERE.parents[1] / 'viz_plot_reference.json').write_text(json.dumps(sources, indent=1) + '\n')
