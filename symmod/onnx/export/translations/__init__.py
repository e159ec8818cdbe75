"""The translations from symmod operators to ONNX, one module per operator family.

Importing this package registers every translator (see ``..registry``).
"""
from . import (activation, arrays, attention, boxes, contrib, copying,  # noqa: F401
               cholesky, control_flow, ctc, deformable, densities, elemwise, histogram,
               factorizations, hawkes, image, image_color, inverse, linalg, matching,
               multibox, multibox_target, nms, nn, norm, optimizer, patches, proposal,
               quantization, random, recurrent, reduce, rotated, sequence, shape, slogdet,
               sparse, special, vision)
