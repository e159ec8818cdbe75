"""``mx.gluon.contrib.estimator``: a training loop for gluon networks (Estimator), its
event handlers and the per-batch processing (BatchProcessor)."""
from . import estimator
from . import event_handler
from . import batch_processor
from .estimator import *        # noqa: F401,F403
from .event_handler import *    # noqa: F401,F403
from .batch_processor import *  # noqa: F401,F403
