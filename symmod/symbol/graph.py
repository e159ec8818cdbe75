"""Graph algorithms over symbol nodes, on networkx.

A symbol's nodes form a DAG with an edge from each node to each of its inputs
(``node -> input``), successors kept in input order. MXNet orders nodes by a
depth-first post-order from the heads, inputs in order, each node once; that is
``networkx.dfs_postorder_nodes`` on this graph.
"""
import networkx as nx

from ..base import MXNetError

__all__ = ['build_graph', 'post_order', 'check_acyclic', 'mutable_input_nodes']


def build_graph(heads):
    """The networkx DiGraph of every node reachable from the head entries."""
    graph = nx.DiGraph()
    pending = [node for node, _ in heads]
    for node in pending:
        graph.add_node(node)
    seen = set(id(n) for n in pending)
    while pending:
        node = pending.pop()
        for child, _ in node.inputs:
            graph.add_edge(node, child)
            if id(child) not in seen:
                seen.add(id(child))
                pending.append(child)
    return graph


def post_order(heads, graph=None):
    """Nodes in MXNet's order: DFS post-order from the heads, inputs in order."""
    graph = build_graph(heads) if graph is None else graph
    # A temporary root whose successors are the heads, in order, gives one DFS
    # that visits the heads in order. build_graph adds each node's edges together,
    # in input order, so networkx's DFS visits inputs in order.
    root = _Root()
    graph.add_node(root)
    for node, _ in heads:
        graph.add_edge(root, node)
    try:
        order = list(nx.dfs_postorder_nodes(graph, source=root))
    finally:
        graph.remove_node(root)
    order.pop()     # the root comes last in post-order
    return order


class _Root:
    """Sentinel root node used by post_order."""
    __slots__ = ()


def check_acyclic(graph):
    """Raise MXNetError naming a cycle if the graph has one."""
    if not nx.is_directed_acyclic_graph(graph):
        cycle = nx.find_cycle(graph)
        raise MXNetError('symbol graph has a cycle: %s'
                         % ' -> '.join(edge[0].name for edge in cycle))


def mutable_input_nodes(nodes):
    """Variables used as auxiliary states (inputs after an operator's arguments)."""
    mutable = set()
    for node in nodes:
        if node.op is None:
            continue
        for child, _ in node.inputs[node.num_arguments():]:
            mutable.add(id(child))
    return mutable
