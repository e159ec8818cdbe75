"""Graph nodes: variables and operator applications with MXNet's string attributes."""
from ..ops import registry

__all__ = ['Node']


class Node:
    """One node of a symbol graph.

    Parameters
    ----------
    op : str or None
        Operator name (canonical or alias) or None for a variable.
    name : str
        The node's name.
    attrs : dict of str to str
        Attributes as MXNet stores them: operator parameters as given by the user plus
        hidden ``__key__`` attributes.
    inputs : list of (Node, int)
        Input entries: producing node and output index. Arguments first, then
        auxiliary states.
    """
    __slots__ = ('op', 'name', 'attrs', 'inputs', 'versions', 'mutations', '_operator',
                 '__weakref__')

    def __init__(self, op, name, attrs=None, inputs=None, versions=None):
        self.op = None if op is None else registry.get(op).name
        self.name = name
        self.attrs = dict(attrs or {})
        self.inputs = list(inputs or [])
        # nnvm's entry versions: how many times an operator had mutated an input
        # variable (an auxiliary state) when this node was composed; kept for JSON.
        self.versions = list(versions) if versions is not None else [0] * len(self.inputs)
        self.mutations = 0      # for variables: times mutated by composed operators
        self._operator = None

    def bump_versions(self):
        """Record, as nnvm does on composition, a new version of each mutated input variable."""
        self.versions = [0] * len(self.inputs)
        for j, (child, _) in enumerate(self.inputs):
            if j >= self.num_arguments() and child.op is None:
                child.mutations += 1
                self.versions[j] = child.mutations

    @property
    def is_variable(self):
        """True for a variable (an input of the graph)."""
        return self.op is None

    def operator(self):
        """The parsed operator instance for this node (cached until attributes change);
        used for inference. Executors make their own with :meth:`new_operator`."""
        if self._operator is None:
            self._operator = self.new_operator()
        return self._operator

    def new_operator(self):
        """A fresh operator instance parsed from the attributes (one per executor, so
        operators may cache shape-dependent work on themselves)."""
        cls = registry.get(self.op)
        return cls({k: v for k, v in self.attrs.items() if cls.takes_param(k)})

    def set_attrs(self, attrs):
        """Update attributes (re-parses operator parameters on next use)."""
        self.attrs.update(attrs)
        self._operator = None

    def num_outputs(self):
        """Number of outputs, hidden ones included."""
        return 1 if self.op is None else len(self.operator().list_outputs())

    def num_visible_outputs(self):
        """Number of outputs a symbol exposes."""
        return 1 if self.op is None else self.operator().num_visible_outputs()

    def num_arguments(self):
        """Number of leading inputs that are arguments (the rest are auxiliary states)."""
        return 0 if self.op is None else len(self.operator().list_arguments())

    def output_name(self, index):
        """MXNet's name for output ``index``: ``<name>_<output>`` (a variable: its name)."""
        if self.op is None:
            return self.name
        out = self.operator().list_outputs()[index]
        return '%s_%s' % (self.name, out) if self.name else out

    def __repr__(self):
        return '<Node %s %s>' % (self.op or 'var', self.name)
