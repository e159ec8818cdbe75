"""``Block.summary``: run a forward pass with hooks on every layer and print MXNet's
table of output shapes and parameter counts.

The table's layout and wording, and the way it counts (a layer that appears twice in
the model gets two rows; a Parameter seen before counts as shared), are MXNet 1.9.1's.
"""
from collections import OrderedDict

from ..ndarray import NDArray

__all__ = ['print_summary']

_LINE = '{:>20}  {:>42} {:>15}'


def _flatten(args):
    """A flat list of the leaves of nested lists/tuples, and the format to rebuild them."""
    if not isinstance(args, (list, tuple)):
        return [args], 0
    flat, fmts = [], []
    for arg in args:
        items, fmt = _flatten(arg)
        flat.extend(items)
        fmts.append(fmt)
    return flat, fmts


def _regroup(args, fmt):
    if isinstance(fmt, int):
        if fmt == 0:
            return args[0], args[1:]
        return args[:fmt], args[fmt:]
    ret = []
    for item in fmt:
        res, args = _regroup(args, item)
        ret.append(res)
    return ret, args


def _shape_str(args):
    """The shapes of (nested) arrays as MXNet prints them: ``(2, 3), [(4,), (4,)]``."""
    flat, fmts = _flatten(args)
    shapes = _regroup([x.shape if isinstance(x, NDArray) else x for x in flat], fmts)[0]
    text = str(shapes)[1:-1] if isinstance(shapes, list) else str(shapes)
    return text.replace('L', '')


def _row(shape_str):
    return OrderedDict([('output_shape', shape_str), ('n_params', 0), ('trainable', 0),
                        ('shared', 0)])


def print_summary(block, inputs):
    """Print the summary table of ``block`` run on ``inputs`` (see ``Block.summary``)."""
    from .hybrid_block import HybridBlock
    from .nn.basic_layers import Sequential, HybridSequential
    summary = OrderedDict()
    seen = set()
    hooks = []

    def register(layer):
        assert not isinstance(layer, HybridBlock) or not layer._active, \
            '"{}" must not be hybridized to print summary.'.format(layer.name)

        # a fresh function per registration: a layer that appears twice in the model gets
        # two hooks (hooks are keyed by id), so two rows per call, as in MXNet
        def summary_hook(layer, _, outputs):
            key = '%s-%i' % (layer.__class__.__name__, len(summary))
            row = summary[key] = _row(_shape_str(outputs))
            for param in layer.params.values():
                size = param.data().size
                row['n_params'] += size
                row['trainable'] += 0 if param.grad_req == 'null' else size
                if param in seen:
                    row['shared'] += size
                else:
                    seen.add(param)

        if not isinstance(layer, (Sequential, HybridSequential)):
            hooks.append(layer.register_forward_hook(summary_hook))

    summary['Input'] = _row(_shape_str(inputs))
    try:
        block.apply(register)
        block(*inputs)
        print('-' * 80)
        print(_LINE.format('Layer (type)', 'Output Shape', 'Param #'))
        print('=' * 80)
        total = trainable = shared = 0
        for name, row in summary.items():
            print(_LINE.format(name, str(row['output_shape']), row['n_params']))
            total += row['n_params']
            trainable += row['trainable']
            shared += row['shared']
        print('=' * 80)
        print('Parameters in forward computation graph, duplicate included')
        print('   Total params: ' + str(total))
        print('   Trainable params: ' + str(trainable))
        print('   Non-trainable params: ' + str(total - trainable))
        print('Shared params in forward computation graph: ' + str(shared))
        print('Unique parameters in model: ' + str(total - shared))
        print('-' * 80)
    finally:
        for hook in hooks:
            hook.detach()
