"""``python -m symmod.onnx``: move a checkpoint to ONNX and check it, in two commands.

    python -m symmod.onnx export PREFIX EPOCH --input-shape 1,1,28,28 --dynamic -o m.onnx
    python -m symmod.onnx check m.onnx --prefix PREFIX --epoch EPOCH

``export`` reads ``PREFIX-symbol.json`` and ``PREFIX-%04d.params`` (MXNet's or
symmod's) and writes the ONNX model. ``check`` runs the checkpoint with symmod's
``Module.predict`` and the ONNX file with ONNX Runtime on the same random inputs (or
``--data`` arrays) and prints the largest differences; it exits with status 1 when they
exceed ``--atol`` / ``--rtol``.
"""
import argparse
import sys

import numpy as np

from ..base import MXNetError

__all__ = ['main']


def _shape(text):
    try:
        return tuple(int(d) for d in text.replace('x', ',').split(',') if d.strip())
    except ValueError:
        raise argparse.ArgumentTypeError('expected a shape such as 1,1,28,28, found %r'
                                         % text) from None


def _parser():
    parser = argparse.ArgumentParser(prog='python -m symmod.onnx',
                                     description='Export a checkpoint to ONNX and check it.')
    commands = parser.add_subparsers(dest='command', required=True)
    export = commands.add_parser('export', help='checkpoint -> ONNX model')
    export.add_argument('prefix', help='checkpoint prefix (PREFIX-symbol.json)')
    export.add_argument('epoch', type=int, help='epoch of PREFIX-%%04d.params')
    export.add_argument('--input-shape', type=_shape, action='append', required=True,
                        help='shape of an input, e.g. 1,1,28,28 (once per input, in the '
                             "order of the symbol's inputs)")
    export.add_argument('--input-type', default='float32', help='input dtype (all inputs)')
    export.add_argument('--dynamic', action='store_true',
                        help='let the batch size vary (and other dimensions the graph allows)')
    export.add_argument('--dynamic-all', action='store_true',
                        help='with --dynamic: let every dimension vary, not only the batch')
    export.add_argument('--opset', type=int, default=None,
                        help='ONNX opset (default: the newest the installed onnx supports)')
    export.add_argument('-o', '--output', default=None, help='model file (default PREFIX.onnx)')
    check = commands.add_parser('check', help='compare ONNX Runtime with symmod')
    check.add_argument('model', help='the .onnx file')
    check.add_argument('--prefix', required=True, help='checkpoint prefix')
    check.add_argument('--epoch', type=int, required=True, help='checkpoint epoch')
    check.add_argument('--batch-size', type=int, default=4,
                       help='size given to the dynamic dimensions of the inputs')
    check.add_argument('--data', action='append', default=None,
                       help='.npy file with an input (once per input) instead of random data')
    check.add_argument('--seed', type=int, default=0)
    check.add_argument('--atol', type=float, default=1e-4)
    check.add_argument('--rtol', type=float, default=1e-3)
    return parser


def _export(args):
    from .export.model import export_model
    output = args.output or args.prefix + '.onnx'
    dynamic_shapes = None
    if args.dynamic and not args.dynamic_all:
        dynamic_shapes = [('batch',) + tuple(shape[1:]) for shape in args.input_shape]
    export_model('%s-symbol.json' % args.prefix, '%s-%04d.params' % (args.prefix, args.epoch),
                 args.input_shape, np.dtype(args.input_type), output, dynamic=args.dynamic,
                 dynamic_input_shapes=dynamic_shapes, opset_version=args.opset)
    print('wrote %s' % output)
    return 0


def _inputs(model, args):
    """{name: array} for the model's graph inputs."""
    from . import _deps
    params = {t.name for t in model.graph.initializer}
    infos = [i for i in model.graph.input if i.name not in params]
    if args.data is not None and len(args.data) != len(infos):
        raise MXNetError('check: %d --data files for %d model inputs %s'
                         % (len(args.data), len(infos), [i.name for i in infos]))
    rng = np.random.RandomState(args.seed)
    feed = {}
    for k, info in enumerate(infos):
        dtype = _deps.numpy_type(info.type.tensor_type.elem_type)
        if args.data is not None:
            feed[info.name] = np.load(args.data[k]).astype(dtype)
            continue
        shape = [d.dim_value if d.HasField('dim_value') else args.batch_size
                 for d in info.type.tensor_type.shape.dim]
        feed[info.name] = rng.uniform(0, 1, shape).astype(dtype)
    return feed


def _symmod_outputs(prefix, epoch, feed):
    from .. import io, model as _model, module
    sym, arg_params, aux_params = _model.load_checkpoint(prefix, epoch)
    names = list(feed)
    labels = [n for n in sym.list_arguments()
              if n not in arg_params and n not in names and n.endswith('label')]
    mod = module.Module(sym, data_names=names, label_names=labels)
    shapes = dict(zip(sym.list_arguments(), sym.infer_shape_partial(
        **{n: feed[n].shape for n in names})[0]))
    mod.bind(data_shapes=[(n, feed[n].shape) for n in names],
             label_shapes=[(n, shapes[n]) for n in labels] or None, for_training=False)
    mod.set_params(arg_params, aux_params, allow_missing=False)
    batch = next(iter(feed.values())).shape[0]
    data = io.NDArrayIter({n: feed[n] for n in names}, batch_size=batch)
    outputs = mod.predict(data, merge_batches=True, always_output_list=True)
    return [out.asnumpy() for out in outputs]


def _check(args):
    from . import _deps
    try:
        import onnxruntime
    except ImportError:
        raise ImportError('check needs onnxruntime: pip install onnxruntime') from None
    model = _deps.onnx().load(args.model)
    feed = _inputs(model, args)
    session = onnxruntime.InferenceSession(args.model, providers=['CPUExecutionProvider'])
    got = session.run(None, feed)
    expected = _symmod_outputs(args.prefix, args.epoch, feed)
    if len(got) != len(expected):
        print('outputs differ in number: ONNX Runtime %d, symmod %d' % (len(got),
                                                                     len(expected)))
        return 1
    worst = 0.0
    failed = False
    for info, o, e in zip(session.get_outputs(), got, expected):
        if o.shape != e.shape:
            print('%s: shape %s in ONNX Runtime, %s in symmod' % (info.name, o.shape, e.shape))
            failed = True
            continue
        diff = np.abs(o.astype(np.float64) - e.astype(np.float64))
        largest = float(diff.max(initial=0.0))
        worst = max(worst, largest)
        within = np.all(diff <= args.atol + args.rtol * np.abs(e))
        failed |= not within
        print('%s %s: largest absolute difference %.3g (relative %.3g)%s'
              % (info.name, o.shape, largest,
                 float((diff / np.maximum(np.abs(e), 1e-12)).max(initial=0.0)),
                 '' if within else '  <-- beyond atol %g / rtol %g' % (args.atol, args.rtol)))
    print('%s: %s (inputs %s)' % (args.model, 'MISMATCH' if failed else 'OK',
                                  ', '.join('%s%s' % (k, v.shape) for k, v in feed.items())))
    return 1 if failed else 0


def main(argv=None):
    args = _parser().parse_args(argv)
    try:
        if args.command == 'export':
            return _export(args)
        return _check(args)
    except (MXNetError, ValueError, OSError) as err:
        print('error: %s' % err, file=sys.stderr)
        return 2
