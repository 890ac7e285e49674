#!/usr/bin/env python3
"""Many devices waiting on a sync server over HTTP, and the server's /health beside them.

Usage: sync-waiting-load.py URL SERVER_PID EXPENSES_WEB [DEVICES,…]

URL is a running `expenses-web` in account mode (EXPENSES_AUTH_SECRET set, here too, so that
`EXPENSES_WEB token USER` signs tokens it takes); SERVER_PID its process. Up to DEVICES (1,000
then 2,000 unless given) idle devices, 32 to a user (a user may keep 32 waiting), each hold a long poll
(`POST /sync` with a wait, as `SyncClient.run()` sends), asking again when it is answered, on a
connection of its own. Measured: /health's answer time (p50, p95, largest of 200 in a row) and
the server's resident memory, with none waiting and with each crowd; the server's CPU time over 5
idle seconds with each crowd; and how many waits were refused or failed (none should be).
Prints one markdown table. Exits non-zero when a wait failed or /health did not answer.
"""
import asyncio
import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request


def resident_mb(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def health_times(url, count=200):
    times = []
    for _ in range(count):
        start = time.monotonic()
        with urllib.request.urlopen(f"{url}/health", timeout=10) as answer:
            answer.read()
            if answer.status != 200:
                raise SystemExit(f"/health answered {answer.status}")
        times.append(time.monotonic() - start)
    times.sort()
    return times[len(times) // 2], times[int(len(times) * 0.95)], times[-1]


def schema_of(url, token):
    """The server's schema version, from its answer to a request of another schema (409)."""
    request = urllib.request.Request(f"{url}/sync", data=b'{"schema":"?","node":"probe","wait":0,"pullLimit":1,"pullBytes":1,"push":[]}',
                                     headers={"Authorization": f"Bearer {token}"}, method="POST")
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        found = re.search(r"this side has version (.*), the other", error.read().decode())
        if found:
            return found.group(1)
    raise SystemExit("the server did not say its schema version")


async def device(host, port, token, body, counts, stop):
    reader, writer = await asyncio.open_connection(host, port)
    head = (f"POST /sync HTTP/1.1\r\nHost: {host}:{port}\r\nAuthorization: Bearer {token}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n").encode()
    try:
        while not stop.is_set():
            writer.write(head + body)
            await writer.drain()
            counts["sent"] += 1
            status = int((await reader.readline()).split()[1])
            length, chunked = 0, False
            while True:
                line = (await reader.readline()).strip().lower()
                if not line:
                    break
                if line.startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
                if line.startswith(b"transfer-encoding:") and b"chunked" in line:
                    chunked = True
            if chunked:
                while True:
                    size = int((await reader.readline()).strip(), 16)
                    await reader.readexactly(size + 2)
                    if size == 0:
                        break
            else:
                await reader.readexactly(length)
            counts["answered" if status == 200 else "refused"] += 1
            if status != 200:
                await asyncio.sleep(1)
    except (ConnectionError, asyncio.IncompleteReadError, ValueError, IndexError):
        if not stop.is_set():
            counts["failed"] += 1
    finally:
        writer.close()


async def main():
    url, pid, web = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    stages = [int(count) for count in sys.argv[4].split(",")] if len(sys.argv) > 4 else [1000, 2000]
    devices = max(stages)
    host, port = re.match(r"http://([^:/]+):(\d+)", url).groups()
    users = -(-devices // 32)
    tokens = [subprocess.run([web, "token", f"idle-{user}"], check=True, capture_output=True, text=True).stdout.strip() for user in range(users)]
    schema = schema_of(url, tokens[0])

    rows = []
    alone = health_times(url)
    rows.append((0, alone, resident_mb(pid), None))
    counts = {"sent": 0, "answered": 0, "refused": 0, "failed": 0}
    stop = asyncio.Event()
    tasks = []
    for stage in stages:
        for index in range(len(tasks), stage):
            body = json.dumps({"schema": schema, "node": f"idle device {index}", "wait": 25, "position": 0,
                               "pullLimit": 500, "pullBytes": 1 << 20, "push": []}).encode()
            tasks.append(asyncio.create_task(device(host, int(port), tokens[index // 32], body, counts, stop)))
        while counts["sent"] < stage:
            await asyncio.sleep(0.1)
        # Each wait's first look at the store done before measuring.
        await asyncio.sleep(5)
        crowd = await asyncio.to_thread(health_times, url)
        cpu = cpu_seconds(pid)
        await asyncio.sleep(5)
        idle_cpu = cpu_seconds(pid) - cpu
        rows.append((stage, crowd, resident_mb(pid), idle_cpu))
    stop.set()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)

    def ms(seconds):
        return f"{seconds * 1000:.1f}"
    print("| Waiting devices | /health p50 (ms) | p95 (ms) | largest (ms) | Server resident (MB) | Server CPU over 5 s idle (s) |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: |")
    for waiting, (p50, p95, largest), resident, idle in rows:
        print(f"| {waiting:,} | {ms(p50)} | {ms(p95)} | {ms(largest)} | {resident:.1f} | {'-' if idle is None else f'{idle:.2f}'} |")
    print(f"\n{counts['sent']:,} waits sent, {counts['answered']:,} answered before the end, {counts['refused']} refused, {counts['failed']} failed.")
    if counts["refused"] or counts["failed"]:
        raise SystemExit("some waits were refused or failed")


asyncio.run(main())
