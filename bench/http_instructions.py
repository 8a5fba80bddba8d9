"""CPU instructions of the server process per ruling recorded over HTTP, less the bare endpoint's
per request: counted, not timed, so a busy machine does not move it.

`sudya serve` (one uvicorn process, on a throwaway SQLite demo database with 400 more players,
as bench/http_record.py) runs under `valgrind --tool=callgrind --instr-atstart=no`: its start, the
sign-in and `--warmup` requests are not counted; then `callgrind_control` switches the
counting on for `--requests` sequential requests over one keep-alive connection
(`POST /api/v1/tournaments/{tid}/infractions`, a bearer token, each its own idempotency key)
and dumps the count. The bare endpoint of bench/serving.py (one durable insert per request
under the same uvicorn) gets the same requests the same way. What the servers do when idle
(uvicorn's tick, timers) is counted in an `--idle` window before the requests and taken off
in proportion to the requests' window (valgrind is slow: a request's wall time is long).
With `--counter perf`, `perf stat -e instructions:u` attached to the server counts the same
windows at full speed where the machine has the counter (`perf stat -e instructions true`
says «not supported» where it has not); `--counter auto` takes perf where it works, else
callgrind.

Prints the instructions per request of both, their difference and ratio; the goal is on the
difference. Needs valgrind (Debian's `valgrind`); under a minute with the defaults.

    python bench/http_instructions.py [--requests 50] [--warmup 20] [--idle 3]
                                      [--counter auto|callgrind|perf] [--db URL]
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import json
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import serving
from serving import HOST

INFRACTIONS = ["procedure.minor", "cards.drawing-extra", "gameplay.slow-play",
               "cards.looking-at-extra", "procedure.significant", "marked-cards.minor"]


def perf_works() -> bool:
    """Whether `perf stat` counts instructions on this machine."""
    if not shutil.which("perf"):
        return False
    done = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"],
                          capture_output=True, text=True)
    return done.returncode == 0 and "not supported" not in done.stderr \
        and re.search(r"^\d+,", done.stderr, re.MULTILINE) is not None


class Callgrind:
    """The server under callgrind, counting only between `start` and `stop`."""

    name = "valgrind --tool=callgrind"

    def __init__(self, out: Path) -> None:
        self.out = out
        self.pid = 0

    def wrap(self, argv: list[str]) -> list[str]:
        return ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                f"--callgrind-out-file={self.out}", *argv]

    def control(self, *option: str) -> None:
        subprocess.run(["callgrind_control", *option, str(self.pid)], check=True,
                       capture_output=True, timeout=120)

    def start(self) -> None:
        self.control("-i", "on")
        self.control("-z")

    def stop(self) -> int:
        before = set(self.out.parent.glob(self.out.name + ".*"))
        self.control("-d")
        self.control("-i", "off")
        dumps = sorted(set(self.out.parent.glob(self.out.name + ".*")) - before)
        assert len(dumps) == 1, dumps
        text = dumps[0].read_text(errors="replace")
        counts = [int(x) for x in re.findall(r"^(?:totals|summary):\s+(\d+)", text, re.M)]
        assert counts, text[:2000]
        return max(counts)


class Perf:
    """`perf stat` attached to the server between `start` and `stop`."""

    name = "perf stat -e instructions:u"

    def __init__(self, out: Path) -> None:
        self.out = out
        self.pid = 0
        self.proc: subprocess.Popen[bytes] | None = None

    def wrap(self, argv: list[str]) -> list[str]:
        return argv

    def start(self) -> None:
        self.out.unlink(missing_ok=True)
        self.proc = subprocess.Popen(["perf", "stat", "-x,", "-e", "instructions:u",
                                      "-p", str(self.pid), "-o", str(self.out)])
        time.sleep(0.5)  # attached

    def stop(self) -> int:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGINT)
        self.proc.wait(timeout=30)
        for line in self.out.read_text().splitlines():
            field = line.split(",")
            if len(field) > 2 and field[2].startswith("instructions") and field[0].isdigit():
                return int(field[0])
        raise SystemExit(f"perf stat counted nothing:\n{self.out.read_text()}")


@dataclass
class Counted:
    """One server's count: the requests' window and the idle one."""

    instructions: int
    seconds: float
    idle: int
    idle_seconds: float
    requests: int

    @property
    def idle_rate(self) -> float:
        return self.idle / self.idle_seconds

    @property
    def per_request(self) -> float:
        return (self.instructions - self.idle_rate * self.seconds) / self.requests


def send(conn: http.client.HTTPConnection, path: str, token: str, players: int,
         rng: random.Random, i: int) -> None:
    body = json.dumps({"infraction": rng.choice(INFRACTIONS),
                       "player": f"igrok{rng.randrange(players):03}", "round": 1 + i % 9,
                       "idempotency_key": uuid.uuid4().hex})
    headers = {"Content-Type": "application/json"}
    if token != "-":
        headers["Authorization"] = f"Bearer {token}"
    conn.request("POST", path, body, headers)
    answer = conn.getresponse()
    text = answer.read()
    if not 200 <= answer.status < 300:
        raise SystemExit(f"POST {path}: {answer.status} {text[:300]!r}")


def count(counter: Callgrind | Perf, port: int, path: str, token: str, players: int,
          requests: int, warmup: int, idle: float) -> Counted:
    rng = random.Random(7)
    conn = http.client.HTTPConnection(HOST, port, timeout=600)
    for i in range(warmup):
        send(conn, path, token, players, rng, i)
    counter.start()
    start = time.perf_counter()
    time.sleep(idle)
    idle_count = counter.stop()
    idle_seconds = time.perf_counter() - start
    counter.start()
    start = time.perf_counter()
    for i in range(requests):
        send(conn, path, token, players, rng, warmup + i)
    seconds = time.perf_counter() - start
    total = counter.stop()
    conn.close()
    return Counted(total, seconds, idle_count, idle_seconds, requests)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=50, help="counted, per server")
    parser.add_argument("--warmup", type=int, default=20, help="not counted, before")
    parser.add_argument("--idle", type=float, default=3.0, help="the idle window, seconds")
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--counter", choices=("auto", "callgrind", "perf"), default="auto")
    parser.add_argument("--db", default=None, help="a PostgreSQL server (default: SQLite)")
    args = parser.parse_args()
    use_perf = args.counter == "perf" or (args.counter == "auto" and perf_works())
    if not use_perf and not (shutil.which("valgrind") and shutil.which("callgrind_control")):
        raise SystemExit("bench/http_instructions.py needs valgrind (Debian package valgrind)")
    env = serving.server_env()
    counted: dict[str, Counted] = {}
    with tempfile.TemporaryDirectory() as tmp, \
            serving.databases(args.db, Path(tmp)) as (url, bare_url):
        workdir = Path(tmp)
        tid, players = serving.demo_database(url, args.players)
        for name in ("Sudya", "bare"):
            out = workdir / f"count.{name}"
            counter: Callgrind | Perf = Perf(out) if use_perf else Callgrind(out)
            port = serving.free_port()
            if name == "Sudya":
                argv = serving.sudya_argv(url, port, 1)
                ready, server_env, path = serving.SUDYA_READY, env, \
                    serving.SUDYA_PATH.format(tid=tid)
            else:
                argv = serving.bare_argv(workdir, port, 1)
                ready, server_env, path = serving.BARE_READY, serving.bare_env(bare_url), \
                    serving.BARE_PATH
            with serving.server(counter.wrap(argv), f"http://{HOST}:{port}{ready}",
                                server_env, workdir / f"{name}.log",
                                start_seconds=600) as proc:
                counter.pid = proc.pid
                token = serving.login(f"http://{HOST}:{port}") if name == "Sudya" else "-"
                counted[name] = count(counter, port, path, token, len(players),
                                      args.requests, args.warmup, args.idle)
    sudya, bare = counted["Sudya"], counted["bare"]
    kind = "PostgreSQL" if args.db else "SQLite"
    print(f"HTTP instructions per request ({counter.name}), {kind}, 1 process, "
          f"{args.requests} requests after {args.warmup} uncounted, {dt.date.today()}")
    for name, c in counted.items():
        print(f"  {name:>5}: {c.per_request:>12,.0f} per request ({c.instructions:,} in "
              f"{c.seconds:.1f} s; idle {c.idle_rate:,.0f}/s taken off)")
    diff = sudya.per_request - bare.per_request
    print(f"  Sudya - bare: {diff:,.0f} per request; Sudya / bare = "
          f"{sudya.per_request / bare.per_request:.1f}")
    print(f"HTTP-INSTRUCTIONS: {diff / 1e6:.2f} M per request over the bare endpoint "
          f"(goal 1.2 M)")


if __name__ == "__main__":
    main()
