"""MXNet's executor-manager helpers: splitting a batch by workload, argument checks."""
__all__ = ['_split_input_slice', '_check_arguments']


def _split_input_slice(batch_size, work_load_list):
    """Split ``batch_size`` samples into one slice per device, proportional to workload.

    Parameters
    ----------
    batch_size : int
    work_load_list : list of float
        Relative workload of each device.

    Returns
    -------
    list of slice

    Raises
    ------
    ValueError
        When a device would get an empty slice.
    """
    total = sum(work_load_list)
    counts = [round(load * batch_size / total) for load in work_load_list]
    if sum(counts) < batch_size:
        counts[-1] += batch_size - sum(counts)
    slices = []
    end = 0
    for count in counts:
        begin = int(min(end, batch_size))
        end = int(min(begin + count, batch_size))
        if begin >= end:
            raise ValueError('Too many slices. Some splits are empty.')
        slices.append(slice(begin, end))
    return slices


def _check_arguments(symbol):
    """Raise ValueError when argument or auxiliary-state names are duplicated."""
    arg_names = symbol.list_arguments()
    seen = set()
    for name in arg_names:
        if name in seen:
            raise ValueError(('Find duplicated argument name "%s", please make the weight name '
                              'non-duplicated(using name arguments), arguments are %s')
                             % (name, str(arg_names)))
        seen.add(name)
    aux_names = symbol.list_auxiliary_states()
    seen = set()
    for name in aux_names:
        if name in seen:
            raise ValueError(('Find duplicated auxiliary param name "%s", please make the weight '
                              'name non-duplicated(using name arguments), arguments are %s, '
                              'auxiliary params are %s') % (name, str(arg_names), str(aux_names)))
        seen.add(name)
