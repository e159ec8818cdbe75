"""Write tests/data/mxnet_api_names.json: the public names of MXNet 1.9.1's mxnet.ndarray
and mxnet.symbol namespaces (and their contrib/random/linalg/image submodules) and the
public methods of NDArray and Symbol, leaving out the sparse and NumPy interfaces (run with
/work/mxnet-venv/bin/python)."""
import inspect
import json
import pathlib

import mxnet as mx

HERE = pathlib.Path(__file__).resolve()
SKIP_MODULES = {'sparse', 'numpy', 'numpy_extension', 'np', 'npx', 'op', 'gen_op', 'ndarray',
                'symbol', 'utils', 'register', 'contrib', 'random', 'linalg', 'image',
                'internal', 'gen_internal', 'gen_contrib', 'gen_random', 'gen_linalg',
                'gen_image', 'gen_sparse', 'gen_op', 'dlpack', 'gen_numpy',
                'gen_numpy_extension'}


def public(module):
    names = []
    for name in dir(module):
        if name.startswith('_'):
            continue
        value = getattr(module, name)
        if inspect.ismodule(value):
            continue
        if 'sparse' in name.lower() or name in ('np', 'npx'):
            continue
        names.append(name)
    return sorted(names)


def methods(cls):
    return sorted(n for n in dir(cls) if not n.startswith('_')
                  and n not in ('tostype', 'as_np_ndarray', 'as_nd_ndarray', 'stype'))


out = {'ndarray': public(mx.ndarray), 'symbol': public(mx.symbol)}
for sub in ('contrib', 'random', 'linalg', 'image'):
    out['ndarray.' + sub] = public(getattr(mx.ndarray, sub))
    out['symbol.' + sub] = public(getattr(mx.symbol, sub))
out['NDArray'] = methods(mx.nd.NDArray)
out['Symbol'] = methods(mx.sym.Symbol)
(HERE.parents[1] / 'mxnet_api_names.json').write_text(json.dumps(out, indent=0, sort_keys=True)
                                                      + '\n')
