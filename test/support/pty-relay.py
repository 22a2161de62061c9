"""Runs a command in a pseudo-terminal and relays it over pipes, for tests that type
Ctrl-C the way a terminal does (the line discipline, not kill(2)). stdin bytes go to
the terminal; the terminal's output goes to stdout; exits with the command's status
(128+N when killed by signal N)."""
import os
import pty
import select
import sys

pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])

stdin = sys.stdin.fileno()
stdin_open = True
while True:
    watched = [fd] + ([stdin] if stdin_open else [])
    ready, _, _ = select.select(watched, [], [], 0.2)
    if fd in ready:
        try:
            data = os.read(fd, 65536)
        except OSError:
            data = b""
        if not data:
            break
        os.write(sys.stdout.fileno(), data)
    if stdin_open and stdin in ready:
        data = os.read(stdin, 65536)
        if data:
            os.write(fd, data)
        else:
            stdin_open = False
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
sys.exit(code if code >= 0 else 128 - code)
