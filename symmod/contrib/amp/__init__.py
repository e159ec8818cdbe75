"""``mx.contrib.amp``: automatic mixed precision (float16).

``amp.init()`` makes ``mx.nd`` / ``mx.sym`` cast the inputs of the listed operators
(float16 for matrix products, float32 for sensitive ones); ``amp.init_trainer`` and
``amp.scale_loss`` add dynamic loss scaling to a gluon Trainer; ``amp.convert_symbol`` /
``convert_model`` / ``convert_hybrid_block`` insert the casts into an existing float32
model. bfloat16 is not supported (numpy has no bfloat16).
"""
from . import amp
from . import lists
from .amp import *  # noqa: F401,F403
from .loss_scaler import LossScaler
