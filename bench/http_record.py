"""HTTP record rate of the real server under wrk, as a ratio to a bare endpoint in the same run.

Starts `sudya serve` (uvicorn on 127.0.0.1) on a throwaway demo database with 400 more
players, signs in as the demo floor judge (POST /api/v1/login) and has Debian's `wrk` record
infractions through the JSON API (`POST /api/v1/tournaments/{tid}/infractions` with the
bearer token; bench/http_record.lua makes each body, with its own idempotency key) over 1,
16 and 32 connections. Beside it the bare endpoint (bench/serving.py: a Starlette app under
the same uvicorn, one durable insert per request into the same kind of database) gets the
same requests from the same wrk. The two take turns within each level, in `--slices` runs of
`--seconds` each (a minute of a busy machine weighs on both, not on whichever ran then); a
level's p99 is taken from the latency quantiles of its runs pooled. Prints, per level and
server, requests/s, p50, p99 and errors (answers other than 2xx, and wrk's socket errors:
connect, read, write, timeout), and the ratio of the rates.

wrk runs one thread (`-t1`): one core of this 2-core machine is left to the server. If
`wrk` is missing it is installed (`apt-get install -y wrk`). Traffic to 127.0.0.1 only.

    python bench/http_record.py [--seconds 3] [--slices 2] [--clients 1,16,32] [--workers 1]
                                [--players 400] [--db postgresql+psycopg://…/postgres]

With `--db` naming a PostgreSQL server, a throwaway database is created there (and dropped
at the end) for each of the two servers. A longer run: `--seconds 20 --slices 4`.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import serving
from serving import HOST

LUA = Path(__file__).resolve().with_name("http_record.lua")


def ensure_wrk() -> str:
    """The path of `wrk`, installed from Debian's packages if it is not there."""
    found = shutil.which("wrk")
    if found:
        return found
    print("bench/http_record.py: installing Debian's wrk (apt-get install -y wrk)", file=sys.stderr)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", "wrk"]
    if subprocess.run(install, env=env, stdout=subprocess.DEVNULL).returncode != 0:
        subprocess.run(["apt-get", "update", "-qq"], env=env, check=True)
        subprocess.run(install, env=env, check=True, stdout=subprocess.DEVNULL)
    found = shutil.which("wrk")
    if not found:
        raise SystemExit("bench/http_record.py needs wrk (Debian package wrk)")
    return found


@dataclass
class Run:
    """One run of wrk, as bench/http_record.lua reports it."""

    requests: int
    seconds: float
    non2xx: int
    socket: dict[str, int]
    quantiles: list[float]  # seconds, at 0.05 %, 0.15 % … 99.95 %
    sample: str

    @property
    def errors(self) -> int:
        return self.non2xx + sum(self.socket.values())


@dataclass
class Level:
    """A level's runs on one server, pooled."""

    clients: int
    runs: list[Run] = field(default_factory=list)

    @property
    def rate(self) -> float:
        seconds = sum(r.seconds for r in self.runs)
        return sum(r.requests for r in self.runs) / seconds if seconds else 0.0

    @property
    def errors(self) -> int:
        return sum(r.errors for r in self.runs)

    def percentile(self, p: float) -> float:
        """The p-quantile of the runs' latencies pooled: each run's thousand quantiles stand
        for a thousandth of its requests each."""
        points = sorted((q, r.requests / len(r.quantiles))
                        for r in self.runs if r.requests and r.quantiles for q in r.quantiles)
        total = sum(w for _q, w in points)
        if not total:
            return float("nan")
        seen = 0.0
        for q, w in points:
            seen += w
            if seen >= p * total - 1e-9:
                return q
        return points[-1][0]

    def error_kinds(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for r in self.runs:
            if r.non2xx:
                out[f"non-2xx (first: {r.sample})"] = out.get(f"non-2xx (first: {r.sample})",
                                                             0) + r.non2xx
            for kind, n in r.socket.items():
                if n:
                    out[f"socket {kind}"] = out.get(f"socket {kind}", 0) + n
        return out


@dataclass(frozen=True)
class Target:
    name: str
    base: str
    path: str
    token: str  # "-": none


def wrk_run(wrk: str, target: Target, clients: int, seconds: int, players: int,
            timeout: int) -> Run:
    """wrk for `seconds` over `clients` connections against `target`."""
    argv = [wrk, "-t1", f"-c{clients}", f"-d{seconds}s", f"--timeout={timeout}s",
            "-s", str(LUA), target.base, "--", target.path, target.token, str(players),
            uuid.uuid4().hex[:12]]
    done = subprocess.run(argv, capture_output=True, text=True,
                          timeout=seconds + timeout + 60)
    lines = {line.split(" ", 1)[0]: line.partition(" ")[2]
             for line in done.stdout.splitlines() if line.startswith("BENCH")}
    if done.returncode != 0 or "BENCH" not in lines:
        raise SystemExit(f"wrk failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    values = dict(kv.split("=") for kv in lines["BENCH"].split())
    return Run(requests=int(values["requests"]), seconds=int(values["duration_us"]) / 1e6,
               non2xx=int(values["non2xx"]),
               socket={k: int(values[k]) for k in ("connect", "read", "write", "timeout")},
               quantiles=[int(q) / 1e6 for q in lines.get("BENCH_Q", "").split()],
               sample=lines.get("BENCH_SAMPLE", "").strip())


def run_all(wrk: str, targets: list[Target], levels: list[int], seconds: int, slices: int,
            players: int, timeout: int) -> list[list[Level]]:
    """Each level for each target, the targets taking turns in `slices` runs of `seconds`
    (first one first, then the other: a disk or a neighbour slowing the machine for a while
    weighs on both alike, not on whichever ran then)."""
    for target in targets:  # warm up: caches, connections, the thread pools
        wrk_run(wrk, target, 4, 2, players, timeout)
    out: list[list[Level]] = [[] for _ in targets]
    for n in levels:
        whole = [Level(n) for _ in targets]
        for k in range(slices):
            turn = list(enumerate(targets))
            for i, target in turn if k % 2 == 0 else reversed(turn):
                whole[i].runs.append(wrk_run(wrk, target, n, seconds, players, timeout))
        for i, level in enumerate(whole):
            out[i].append(level)
    return out


def report(levels: list[int], sudya: list[Level], bare: list[Level],
           logged: dict[str, dict[str, int]]) -> None:
    ms = 1000.0
    print(f"{'clients':>7} | {'Sudya req/s':>11} {'p50':>8} {'p99':>8} {'errors':>6} | "
          f"{'bare req/s':>10} {'p50':>8} {'p99':>8} {'errors':>6} | {'ratio':>5}")
    for n, a, b in zip(levels, sudya, bare, strict=True):
        ratio = a.rate / b.rate if b.rate else float("nan")
        print(f"{n:>7} | {a.rate:>11,.0f} {a.percentile(.5) * ms:>6.1f}ms "
              f"{a.percentile(.99) * ms:>6.1f}ms {a.errors:>6} | "
              f"{b.rate:>10,.0f} {b.percentile(.5) * ms:>6.1f}ms "
              f"{b.percentile(.99) * ms:>6.1f}ms {b.errors:>6} | {ratio:>5.2f}")
    for name, results in (("Sudya", sudya), ("bare", bare)):
        seen: dict[str, int] = {}
        for level in results:
            for kind, count in level.error_kinds().items():
                seen[kind] = seen.get(kind, 0) + count
        for kind, count in sorted(seen.items(), key=lambda kv: -kv[1])[:5]:
            print(f"  {name} error ×{count}: {kind}")
        for error, count in sorted(logged[name].items(), key=lambda kv: -kv[1])[:3]:
            print(f"  {name} server log ×{count}: {error}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=int, default=3, help="each run of wrk, seconds")
    parser.add_argument("--slices", type=int, default=2,
                        help="runs per level and server, the two servers taking turns")
    parser.add_argument("--clients", default="1,16,32", help="wrk's connections, per level")
    parser.add_argument("--players", type=int, default=400)
    parser.add_argument("--workers", type=int, default=1, help="uvicorn processes")
    parser.add_argument("--timeout", type=int, default=10, help="wrk's, per request, seconds")
    parser.add_argument("--db", default=None, help="a PostgreSQL server (default: SQLite)")
    args = parser.parse_args()
    levels = [int(n) for n in args.clients.split(",")]
    wrk = ensure_wrk()
    from sudya.adapters.db.session import SQLITE_SYNCHRONOUS

    env = serving.server_env()
    with tempfile.TemporaryDirectory() as tmp, \
            serving.databases(args.db, Path(tmp)) as (url, bare_url):
        workdir = Path(tmp)
        tid, players = serving.demo_database(url, args.players)
        port, bare_port = serving.free_port(), serving.free_port()
        # both servers up at once, taking turns (run_all); the one waiting is idle
        with serving.server(serving.sudya_argv(url, port, args.workers),
                            f"http://{HOST}:{port}{serving.SUDYA_READY}", env,
                            workdir / "sudya.log"), \
                serving.server(serving.bare_argv(workdir, bare_port, args.workers),
                               f"http://{HOST}:{bare_port}{serving.BARE_READY}",
                               serving.bare_env(bare_url), workdir / "bare.log"):
            base = f"http://{HOST}:{port}"
            targets = [Target("Sudya", base, serving.SUDYA_PATH.format(tid=tid),
                              serving.login(base)),
                       Target("bare", f"http://{HOST}:{bare_port}", serving.BARE_PATH, "-")]
            sudya, bare = run_all(wrk, targets, levels, args.seconds, args.slices,
                                  len(players), args.timeout)
        logged = {"Sudya": serving.server_errors(workdir / "sudya.log"),
                  "bare": serving.server_errors(workdir / "bare.log")}
    kind = "PostgreSQL" if args.db else f"SQLite (WAL, synchronous={SQLITE_SYNCHRONOUS})"
    print(f"HTTP record under wrk, {kind}, {args.workers} worker(s), {args.slices} × "
          f"{args.seconds} s per level and server, {args.players} players, {dt.date.today()}")
    report(levels, sudya, bare, logged)
    ratios = ", ".join(f"{a.rate / b.rate:.2f} at {n}" if b.rate else f"- at {n}"
                       for n, a, b in zip(levels, sudya, bare, strict=True))
    p99 = ", ".join(f"p99 {a.percentile(.99) * 1000:.0f} ms at {n}"
                    for n, a in zip(levels, sudya, strict=True) if n == 16)
    errors = sum(a.errors for a in sudya)
    print(f"HTTP: {ratios} clients x the bare endpoint; {p99 or 'no level of 16'}; "
          f"{errors} errors (goal 0.6 at 1, 1.0 at 16 and 32, p99 < 50 ms at 16, 0 errors)")


if __name__ == "__main__":
    main()
