"""Sessions of their own for the processes of a job.

``python launch_session.py COMMAND...`` runs a command in a session of its own:
``python -m symmod.launch`` runs every process of a job through this file (by path, so
that symmod is not imported twice), as ``torchrun`` starts each worker in a new session.
Linux shares a busy machine's CPU between sessions first (autogroups): the ranks of a
job in one session would together get the CPU time of one process.

A rank that a plain ``mpiexec`` started (all ranks in the session of the shell) moves
into a session of its own when it creates a distributed store (:func:`own_session_for_rank`).
``SYMMOD_OWN_SESSION=0`` keeps every process in the session it was started in (``1``: move
even where the kernel has no autogroups).
"""
import os
import sys

ENV_OWN_SESSION = 'SYMMOD_OWN_SESSION'
AUTOGROUP_SWITCH = '/proc/sys/kernel/sched_autogroup_enabled'


def enter_own_session():
    """Make this process the leader of a new session; True when it leads one afterwards.

    ``setsid`` needs a process that leads no process group (``mpiexec`` makes each rank
    lead one), so it first joins its parent's group; ``setsid`` then makes the process
    lead a new group again, whose id is its pid, as ``mpiexec`` expects when it signals
    its ranks. Where that is refused the process stays where it was.
    """
    if os.environ.get(ENV_OWN_SESSION, '').strip() == '0':
        return False
    pid = os.getpid()
    if os.getsid(0) == pid:
        return True
    group = os.getpgid(0)
    try:
        if group == pid:
            os.setpgid(0, os.getpgid(os.getppid()))
        os.setsid()
        return True
    except OSError:
        if group == pid and os.getpgid(0) != pid:
            os.setpgid(0, 0)    # lead a group again, as before
        return False


def autogroups_enabled():
    """True when this Linux shares the CPU between sessions first (autogroups on)."""
    try:
        with open(AUTOGROUP_SWITCH) as switch:
            return switch.read().strip() == '1'
    except OSError:
        return False


def own_session_for_rank():
    """Move this rank of an MPI job into a session of its own where that shares the CPU
    better (autogroups on, or ``SYMMOD_OWN_SESSION=1``); True when it leads one."""
    wanted = os.environ.get(ENV_OWN_SESSION, '').strip()
    if wanted != '1' and not autogroups_enabled():
        return os.getsid(0) == os.getpid()
    return enter_own_session()


def main(argv):
    """Start a new session, then exec ``argv`` (a failed setsid leaves the session as it
    was)."""
    enter_own_session()
    os.execvp(argv[0], argv)


if __name__ == '__main__':
    main(sys.argv[1:])
