"""Write tests/data/autograd_symbol_reference.json: mx.autograd.get_symbol(...).tojson()
of the recorded computations in tests/autograd_symbol_cases.py, by real MXNet 1.9.1
(run with /work/mxvenv/bin/python)."""
import json
import pathlib
import sys

import mxnet as mx

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[2]))
from autograd_symbol_cases import CASES  # noqa: E402

cases = {case.__name__: mx.autograd.get_symbol(case(mx)).tojson() for case in CASES}
(HERE.parents[1] / 'autograd_symbol_reference.json').write_text(
    json.dumps(cases, indent=1, sort_keys=True) + '\n')
