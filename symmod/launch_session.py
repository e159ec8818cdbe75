"""Run a command in a session of its own: ``python launch_session.py COMMAND...``.

``python -m symmod.launch`` runs every process of a job through this file (by path, so
that symmod is not imported twice), as ``torchrun`` starts each worker in a new session:
Linux shares a busy machine's CPU between sessions first (autogroups), and the ranks of
a job in one session would together get the CPU time of one process. ``setsid`` needs
a process that leads no process group, so it first joins its parent's; then the command
replaces this process (same pid, and the pid is again the process group id, as
``mpiexec`` expects when it signals its ranks).
"""
import os
import sys


def main(argv):
    """Start a new session, then exec ``argv`` (a failed setsid leaves the session as it
    was)."""
    try:
        if os.getpgid(0) == os.getpid():
            os.setpgid(0, os.getpgid(os.getppid()))
        os.setsid()
    except OSError:
        pass
    os.execvp(argv[0], argv)


if __name__ == '__main__':
    main(sys.argv[1:])
