"""Which function translates which symmod operator, from which ONNX opset on.

A translator is registered for one or more operator names (canonical names, as
``Node.op`` holds them) and the first opset it is valid for; the export picks, for
each node, the translator with the highest ``since`` not above the target opset.
"""
__all__ = ['translator', 'lookup', 'first_opset', 'supported_operators', 'OLDEST_OPSET']

OLDEST_OPSET = 12
_TRANSLATORS = {}       # op name -> [(since, function)], newest first


def translator(*op_names, since=OLDEST_OPSET):
    """Decorator registering ``func(graph, node)`` as the translation of ``op_names``."""
    def wrap(func):
        for name in op_names:
            entries = _TRANSLATORS.setdefault(name, [])
            entries.append((since, func))
            entries.sort(key=lambda entry: -entry[0])
        return func
    return wrap


def lookup(op_name, opset):
    """The translator of ``op_name`` for ``opset``, or None."""
    for since, func in _TRANSLATORS.get(op_name, ()):
        if since <= opset:
            return func
    return None


def first_opset(op_name):
    """The oldest opset ``op_name`` translates at, or None when it has no translator."""
    entries = _TRANSLATORS.get(op_name)
    return min(since for since, _ in entries) if entries else None


def supported_operators(opset):
    """Sorted names of the operators that translate at ``opset``."""
    return sorted(name for name in _TRANSLATORS if lookup(name, opset) is not None)
