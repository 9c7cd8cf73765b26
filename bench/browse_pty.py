#!/usr/bin/env python3
"""`reader browse` as a person meets it: the release binary in a pseudo-terminal of 80×24, its
bytes read back into a small screen (the escape sequences FrameRenderer writes: cursor placing,
clearing, styles), for bench/run.

    browse_pty.py first-screen READER RUNS OUT.json
        the time from starting `reader browse --offline python` to its first full screen (the
        bottom line `r/python · hot · N posts` and the last table row drawn), then `q`; and,
        run for run in turn, `reader posts --offline python` to its end in the same terminal.
    browse_pty.py thread-peak READER OUT.json
        `/usr/bin/time -v` around `reader browse --offline python`: the first post opened (its
        cached comment page, bench/run's synthetic thread), scrolled to the end and back, then
        quit; the peak resident set size and the screen as it was.

The environment (cache, server URLs, NO_COLOR) is bench/run's, inherited."""
import fcntl
import json
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import termios
import time
import unicodedata

COLUMNS, ROWS = 80, 24
BOUND = 30.0  # seconds: generous, only so that a broken run cannot hang bench/run


class Screen:
    """Enough of a terminal for FrameRenderer's output: CUP, ED, SGR (ignored), modes (ignored)."""

    def __init__(self):
        self.rows = [[" "] * COLUMNS for _ in range(ROWS)]
        self.x = self.y = 0
        self.pending = b""

    CSI = re.compile(rb"\x1b\[([?0-9;]*)([@-~])")
    CSI_BEGUN = re.compile(rb"\x1b(\[[?0-9;]*)?")

    def feed(self, data):
        data = self.pending + data
        self.pending = b""
        i = 0
        while i < len(data):
            byte = data[i]
            if byte == 0x1B:
                match = self.CSI.match(data, i)
                if match is None:
                    if self.CSI_BEGUN.fullmatch(data, i):  # the rest comes with the next read
                        self.pending = data[i:]
                        return
                    i += 2  # ESC and one byte: nothing FrameRenderer writes
                    continue
                params, final = match.group(1).decode(), match.group(2)
                if final == b"H":
                    parts = [int(p) if p else 1 for p in params.split(";")] if params else [1, 1]
                    self.y, self.x = min(ROWS, parts[0]) - 1, min(COLUMNS, parts[1] if len(parts) > 1 else 1) - 1
                elif final == b"J" and params == "2":
                    self.rows = [[" "] * COLUMNS for _ in range(ROWS)]
                i = match.end()
            elif byte == 0x0D:
                self.x = 0
                i += 1
            elif byte == 0x0A:
                self.y = min(ROWS - 1, self.y + 1)
                i += 1
            elif byte < 0x20:
                i += 1
            else:
                length = 1 if byte < 0x80 else 2 if byte >> 5 == 0b110 else 3 if byte >> 4 == 0b1110 else 4
                if i + length > len(data):
                    self.pending = data[i:]
                    return
                character = data[i:i + length].decode("utf-8", errors="replace")
                i += length
                if unicodedata.combining(character) and self.x > 0:
                    self.rows[self.y][self.x - 1] += character
                    continue
                if self.x < COLUMNS:
                    self.rows[self.y][self.x] = character
                    wide = unicodedata.east_asian_width(character) in ("W", "F")
                    if wide and self.x + 1 < COLUMNS:
                        self.rows[self.y][self.x + 1] = ""
                    self.x += 2 if wide else 1

    def row(self, y):
        return "".join(self.rows[y]).rstrip()

    def text(self):
        return "\n".join(self.row(y) for y in range(ROWS))


def spawn(command):
    """`command` on a new pseudo-terminal of COLUMNS×ROWS: (process, master fd)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
    env = dict(os.environ, TERM="xterm-256color")
    process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True,
                               preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    return process, master


def read_until(master, screen, done, bound=BOUND):
    """Reads into `screen` until `done(screen)`; False when the bound or the end came first."""
    deadline = time.monotonic() + bound
    while not done(screen):
        left = deadline - time.monotonic()
        if left <= 0:
            return False
        ready, _, _ = select.select([master], [], [], left)
        if not ready:
            return False
        try:
            data = os.read(master, 65536)
        except OSError:
            return False
        if not data:
            return False
        screen.feed(data)
    return True


def drain(master, screen, quiet=0.3, bound=BOUND):
    """Reads until nothing came for `quiet` seconds."""
    deadline = time.monotonic() + bound
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], quiet)
        if not ready:
            return
        try:
            data = os.read(master, 65536)
        except OSError:
            return
        if not data:
            return
        screen.feed(data)


def finish(process, master, keys=b"q"):
    if keys:
        os.write(master, keys)
    try:
        while True:
            ready, _, _ = select.select([master], [], [], 5)
            if not ready or not os.read(master, 65536):
                break
    except OSError:
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    os.close(master)


LIST_SHOWN = re.compile(r"^r/python · hot · \d+ posts")


def full_list(screen):
    """The first full screen: the bottom line says the posts are there, and the last row of the table is drawn."""
    return bool(LIST_SHOWN.match(screen.row(ROWS - 1))) and screen.row(ROWS - 2) != ""


def first_screen(reader, runs, out):
    browse, posts = [], []
    for _ in range(runs):
        screen = Screen()
        start = time.perf_counter()
        process, master = spawn([reader, "browse", "--offline", "python"])
        if not read_until(master, screen, full_list):
            finish(process, master)
            sys.exit(f"browse_pty: no full screen from reader browse within {BOUND} s:\n{screen.text()}")
        browse.append(time.perf_counter() - start)
        finish(process, master)

        start = time.perf_counter()
        process, master = spawn([reader, "posts", "--offline", "python"])
        drain(master, Screen(), quiet=BOUND)
        process.wait()
        posts.append(time.perf_counter() - start)
        os.close(master)
        if process.returncode != 0:
            sys.exit(f"browse_pty: reader posts --offline python exited {process.returncode}")
    json.dump({"browse": browse, "posts": posts, "screen": screen.text()}, open(out, "w"), indent=1)


def thread_peak(reader, out):
    with tempfile.NamedTemporaryFile(mode="r", suffix=".time") as timing:
        screen = Screen()
        process, master = spawn(["/usr/bin/time", "-v", "-o", timing.name, reader, "browse", "--offline", "python"])
        if not read_until(master, screen, full_list):
            finish(process, master, b"q")
            sys.exit(f"browse_pty: no list from reader browse within {BOUND} s:\n{screen.text()}")
        os.write(master, b"\r")  # the first post, selected
        if not read_until(master, screen, lambda s: s.row(ROWS - 1).startswith("r/bench")):
            finish(process, master, b"qq")
            sys.exit(f"browse_pty: the thread did not open within {BOUND} s:\n{screen.text()}")
        drain(master, screen)
        opened = screen.text()
        # To the end and back: every line of the thread drawn once, at least.
        for keys in (b"G", b"g", b"j" * 200, b"J" * 200, b"G", b"K" * 200, b"g"):
            os.write(master, keys)
            drain(master, screen, quiet=0.2)
        finish(process, master, b"qq")
        fields = dict(line.strip().split(": ", 1) for line in open(timing.name) if ": " in line)
    json.dump({"peak_kb": int(fields["Maximum resident set size (kbytes)"]), "screen": opened}, open(out, "w"), indent=1)


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "first-screen":
        first_screen(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    elif len(sys.argv) == 4 and sys.argv[1] == "thread-peak":
        thread_peak(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
