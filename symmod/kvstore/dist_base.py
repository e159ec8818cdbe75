"""What the distributed stores share: the job's transport, rank and size, barriers,
2-bit compression of what a worker sends, the checks on new keys."""
from ..base import MXNetError
from ..launch_session import own_session_for_rank
from . import mpi
from .compression import WorkerCompression, parse_params
from .local import KVStore

__all__ = ['DistStore']


class DistStore(KVStore):
    """Base of ``DistSyncKVStore`` and ``DistAsyncKVStore`` (types in ``TYPES``)."""
    TYPES = ()

    def __init__(self, kv_type):
        kv_type = kv_type.lower()
        if kv_type not in self.TYPES:
            raise MXNetError('%s: type must be one of %s, found %r'
                             % (type(self).__name__, ', '.join(self.TYPES), kv_type))
        self._setup(kv_type)
        if mpi.launched():
            own_session_for_rank()      # a plain mpiexec's ranks share one session
        self._transport = mpi.get()

    def _new_keys(self, pairs, known):
        """The keys of ``pairs``, refusing any already in ``known`` or given twice."""
        keys = []
        for k, _ in pairs:
            if k in known or k in keys:
                raise MXNetError('duplicate init of key %s. Please double check if you '
                                 'called kv.init or kv.broadcast with this key multiple '
                                 'times' % (k,))
            keys.append(k)
        return keys

    def set_gradient_compression(self, compression_params):
        """Send 2-bit codes instead of float32 values (MXNet's 2bit scheme): each worker
        quantizes its sum over its devices with its own residual per key.

        Parameters
        ----------
        compression_params : dict
            ``{'type': '2bit', 'threshold': 0.5}``; ``threshold`` defaults to 0.5.

        Raises
        ------
        MXNetError
            For a missing or unknown type, or a threshold <= 0.
        """
        _, threshold = parse_params(compression_params)
        self._compression = WorkerCompression(threshold)

    @property
    def rank(self):
        """This worker's rank, in ``[0, num_workers)``."""
        return self._transport.rank

    @property
    def num_workers(self):
        """The number of workers of the job (servers not counted)."""
        return self._transport.size

    def barrier(self):
        """Wait until every worker reaches its barrier."""
        self._transport.barrier()

    def _barrier(self):
        """Same as :meth:`barrier` (MXNet's name)."""
        self.barrier()

    def __repr__(self):
        return '<KVStore %s, rank %d of %d, %d keys>' % (self._type, self.rank,
                                                          self.num_workers, len(self._order))
