"""Which function translates which ONNX operator type into symmod."""
__all__ = ['translator', 'lookup', 'supported_operators']

_TRANSLATORS = {}


def translator(*op_types):
    """Decorator registering ``func(graph, node) -> Symbol or list`` for ONNX op types."""
    def wrap(func):
        for op_type in op_types:
            _TRANSLATORS[op_type] = func
        return func
    return wrap


def lookup(op_type):
    return _TRANSLATORS.get(op_type)


def supported_operators():
    """Sorted ONNX operator types the import understands."""
    return sorted(_TRANSLATORS)
