"""``python -m symmod.onnx export|check`` (see :mod:`symmod.onnx.cli`)."""
import sys

from .cli import main

sys.exit(main())
