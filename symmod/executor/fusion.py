"""BatchNorm, and a residual addition, fused with the relu that alone reads its output.

In a convolutional net the two run back to back over the same activations. Unfused,
the BatchNorm reads its input twice and writes its output, and the relu reads that and
writes its own; backward, the relu reads its output and output gradient and writes the
BatchNorm's output gradient, which the BatchNorm's two passes read again. Fused, the
BatchNorm writes the relu's output directly, and its backward passes read the relu's
output gradient and output (as the mask) in place of its own output gradient: two passes
over the activations fewer forward, and the relu's three backward.

The fused steps take the relu's places in the step lists, where every array they read
is still live and the relu's output starts its life: the BatchNorm's own output buffer is
then never written (nothing reads it: the relu is its only consumer, and BatchNorm's
backward does not use it), nor its output gradient. Backward is fused only where the
BatchNorm's backward step directly follows the relu's, so that the data gradient it writes
is not written earlier than the plan expects. The executor runs the fused lists unless a
monitor or the profiler asks for every operator's own outputs.

A residual addition (``elemwise_add``) and its relu fuse the same way, where the two
steps are next to each other both ways (the addition's inputs may not outlive it):
forward ``z = max(a + b, 0)`` in one pass, backward both input gradients straight from
the relu's output gradient and output. Where a BatchNorm's output is such an addition's
input and nothing else reads it, and the BatchNorm runs right before the addition, the
three run as one forward pass ``z = max(BatchNorm(x) + b, 0)``: the BatchNorm's output is
never written nor read.
"""
import collections

from ..ops import elementwise_kernels
from ..ops.activation import Activation
from ..ops.elemwise import ElemwiseBinary
from ..ops.norm import BatchNorm

__all__ = ['fuse_batchnorm_relu', 'fuse_add_relu', 'fuse_batchnorm_add_relu', 'fuse']


class _FusedForward:
    """The forward step of a BatchNorm writing its relu's output."""

    def __init__(self, batchnorm):
        self.batchnorm = batchnorm
        self.name = batchnorm.name

    def forward(self, is_train, req, in_data, out_data, aux):
        self.batchnorm.forward(is_train, req, in_data, out_data, aux, relu=True)


class _FusedBackward:
    """The backward step of a BatchNorm reading its relu's output gradient, masked by
    the relu's output ``relu_out``."""

    def __init__(self, batchnorm, relu_out):
        self.batchnorm = batchnorm
        self.name = batchnorm.name
        self.relu_out = relu_out

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        self.batchnorm.backward(req, out_grad, in_data, out_data, in_grad, aux,
                                relu_out=self.relu_out)


def _is_relu(op):
    """Activation(act_type='relu') or the relu operator (both pass their output gradient
    where their output is positive)."""
    return (type(op) is Activation and op.act_type == 'relu') or op.name == 'relu'


def _readers(nodes, heads):
    """How many times each value ``(id(node), index)`` is read by the nodes or heads."""
    count = collections.Counter((id(child), i) for node in nodes for child, i in node.inputs)
    count.update((id(node), i) for node, i in heads)
    return count


def fuse_batchnorm_relu(forward_steps, backward_steps, nodes, heads):
    """The step lists with every BatchNorm whose output only a relu reads fused with it.

    Parameters
    ----------
    forward_steps, backward_steps : list of tuple
        The plan's steps (``Plan.forward_steps`` and ``Plan.backward_steps``).
    nodes : list
        The graph's operator nodes.
    heads : list of (node, int)
        The graph's outputs.

    Returns
    -------
    (list, list)
        New forward and backward step lists (the plan's are left as they are).
    """
    readers = _readers(nodes, heads)
    forward_of = {id(step[-1]): step for step in forward_steps}
    fused = {}          # id(relu node) -> the BatchNorm's forward step
    for step in forward_steps:
        op, node = step[0], step[-1]
        if not _is_relu(op):
            continue
        child, index = node.inputs[0]
        source = forward_of.get(id(child))
        # the relu alone reads the BatchNorm's output; its mean and variance outputs,
        # written later fused, are read by nothing but its backward
        if (index != 0 or source is None or type(source[0]) is not BatchNorm
                or readers[(id(child), 0)] != 1 or readers[(id(child), 1)]
                or readers[(id(child), 2)]):
            continue
        fused[id(node)] = source
    if not fused:
        return forward_steps, backward_steps
    batchnorms = {id(step[-1]) for step in fused.values()}

    new_forward = []
    for step in forward_steps:
        node = step[-1]
        if id(node) in batchnorms:
            continue                            # runs at its relu's place
        source = fused.get(id(node))
        if source is None:
            new_forward.append(step)
            continue
        bn_op, bn_req, bn_ins, bn_outs, bn_aux, bn_node = source
        new_forward.append((_FusedForward(bn_op), bn_req, bn_ins, [step[3][0]] + bn_outs[1:],
                            bn_aux, bn_node))

    new_backward, skip = [], False
    for position, step in enumerate(backward_steps):
        if skip:
            skip = False
            continue
        source = fused.get(id(step[-1]))
        following = backward_steps[position + 1] if position + 1 < len(backward_steps) else None
        if (source is None or following is None or following[-1] is not source[-1]
                or step[1][0] != 'write' or following[2][0] is not step[5][0]):
            new_backward.append(step)
            continue
        # relu step: (op, req, [dz], [y], [z], [dy], aux, node); BatchNorm's follows it
        bn_op, bn_req, _, bn_ins, bn_outs, bn_in_grad, bn_aux, bn_node = following
        new_backward.append((_FusedBackward(bn_op, step[4][0]), bn_req,
                             [step[2][0]] + list(following[2][1:]), bn_ins, bn_outs,
                             bn_in_grad, bn_aux, bn_node))
        skip = True
    return new_forward, new_backward


class _AddReluForward:
    """The forward step of ``relu(a + b)``."""

    def __init__(self, add, relu):
        self.name = relu.name

    def forward(self, is_train, req, in_data, out_data, aux):
        elementwise_kernels.add_relu(in_data[0], in_data[1], out_data[0])


class _AddReluBackward:
    """The backward step of ``relu(a + b)``: the relu's output gradient and output in,
    both input gradients of the addition out."""

    def __init__(self, add, relu):
        self.name = add.name

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        elementwise_kernels.relu_grad_pair(out_grad[0], out_data[0], in_grad[0], in_grad[1],
                                           req[0], req[1])


def fuse_add_relu(forward_steps, backward_steps, nodes, heads):
    """The step lists with every ``elemwise_add`` whose output only the relu right after it
    reads fused with it: forward where the two steps are next to each other, backward
    where their backward steps are (and the relu's input gradient is written by the relu
    alone and read by the addition alone).

    Parameters and return value as :func:`fuse_batchnorm_relu`.
    """
    readers = _readers(nodes, heads)
    forward_pairs = {}          # id(relu node) -> the addition's forward step
    for before, step in zip(forward_steps, forward_steps[1:]):
        add, node = before[0], before[-1]
        child, index = step[-1].inputs[0] if step[-1].inputs else (None, None)
        if (_is_relu(step[0]) and isinstance(add, ElemwiseBinary)
                and add.name == 'elemwise_add' and child is node and index == 0
                and readers[(id(node), 0)] == 1):
            forward_pairs[id(step[-1])] = before
    if not forward_pairs:
        return forward_steps, backward_steps
    backward_pairs = {}         # id(relu node) -> the addition's backward step
    for step, after in zip(backward_steps, backward_steps[1:]):
        before = forward_pairs.get(id(step[-1]))
        if (before is not None and after[-1] is before[-1] and step[1][0] == 'write'
                and after[2][0] is step[5][0]):
            backward_pairs[id(step[-1])] = after

    new_forward, fused = [], {id(before[-1]) for before in forward_pairs.values()}
    for step in forward_steps:
        if id(step[-1]) in fused:
            continue                            # runs with its relu, the next step
        before = forward_pairs.get(id(step[-1]))
        if before is None:
            new_forward.append(step)
        else:
            new_forward.append((_AddReluForward(before[0], step[0]), step[1], before[2],
                                step[3], before[4], step[-1]))
    new_backward, fused = [], {id(after[-1]) for after in backward_pairs.values()}
    for step in backward_steps:
        if id(step[-1]) in fused:
            continue                            # ran with its relu, the step before
        after = backward_pairs.get(id(step[-1]))
        if after is None:
            new_backward.append(step)
        else:
            # (op, req, out_grad, ins, outs, in_grad, aux, node): the relu's output
            # gradient and output; the addition's requests, inputs and input gradients
            new_backward.append((_AddReluBackward(after[0], step[0]), after[1], step[2],
                                 after[3], step[4], after[5], after[6], after[-1]))
    return new_forward, new_backward


class _BatchNormAddReluForward:
    """The forward step of ``relu(BatchNorm(x) + residual)``."""

    def __init__(self, batchnorm):
        self.batchnorm = batchnorm
        self.name = batchnorm.name

    def forward(self, is_train, req, in_data, out_data, aux):
        self.batchnorm.forward(is_train, req, in_data[:-1], out_data, aux, relu=True,
                               residual=in_data[-1])


def fuse_batchnorm_add_relu(forward_steps, nodes, heads):
    """The forward steps with every BatchNorm whose output only a fused ``relu(a + b)``
    step (:func:`fuse_add_relu`) reads, the step right after it, fused into that step.

    The BatchNorm's output is then never written: one write and one read of the
    activations fewer. Backward is unchanged (the addition's backward step writes the
    BatchNorm's output gradient from the relu's output gradient and output alone).

    Parameters
    ----------
    forward_steps : list of tuple
        Forward steps after :func:`fuse_add_relu`.
    nodes, heads
        As :func:`fuse_batchnorm_relu`.

    Returns
    -------
    list
        The new forward steps.
    """
    readers = _readers(nodes, heads)
    new_forward, position = [], 0
    while position < len(forward_steps):
        step = forward_steps[position]
        after = forward_steps[position + 1] if position + 1 < len(forward_steps) else None
        node = step[-1]
        if (type(step[0]) is not BatchNorm or after is None
                or type(after[0]) is not _AddReluForward or step[1][0] != 'write'
                or after[1][0] != 'write' or readers[(id(node), 0)] != 1
                or readers[(id(node), 1)] or readers[(id(node), 2)]):
            new_forward.append(step)
            position += 1
            continue
        add_node = after[-1].inputs[0][0]
        sides = [i for i, (child, index) in enumerate(add_node.inputs)
                 if child is node and index == 0]
        if len(sides) != 1:
            new_forward.append(step)
            position += 1
            continue
        op, req, ins, outs, aux, _ = step
        residual = after[2][1 - sides[0]]
        new_forward.append((_BatchNormAddReluForward(op), req, list(ins) + [residual],
                            [after[3][0]] + list(outs[1:]), aux, node))
        position += 2
    return new_forward


def fuse(forward_steps, backward_steps, nodes, heads):
    """All three fusions (:func:`fuse_batchnorm_relu`, :func:`fuse_add_relu`,
    :func:`fuse_batchnorm_add_relu`)."""
    forward_steps, backward_steps = fuse_batchnorm_relu(forward_steps, backward_steps,
                                                        nodes, heads)
    forward_steps, backward_steps = fuse_add_relu(forward_steps, backward_steps, nodes, heads)
    return fuse_batchnorm_add_relu(forward_steps, nodes, heads), backward_steps
