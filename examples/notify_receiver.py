#!/usr/bin/env python3
"""A small WebSocket receiver for Sluice stream notifications (the quick start's).

Listens on ws://HOST:PORT (any path), appends every message as one JSON line to FILE and
prints a one-line summary per event. Delivery is at least once: a message that arrives
twice has the same messageId, so this receiver keeps the ids it has seen and skips repeats.

usage: notify_receiver.py [--host 127.0.0.1] [--port 6299] [--out notifications.jsonl]
"""
import argparse
import asyncio
import json
import sys

import websockets


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=6299)
    ap.add_argument("--out", default="notifications.jsonl")
    ap.add_argument("--quiet", action="store_true", help="do not print a line per event")
    args = ap.parse_args()
    seen = set()
    out = open(args.out, "a", buffering=1)

    async def handler(ws, path=None):
        async for msg in ws:
            try:
                m = json.loads(msg)
            except ValueError:
                print(f"notify_receiver: not JSON: {msg[:80]!r}", file=sys.stderr)
                continue
            if m.get("messageId") in seen:
                continue
            seen.add(m.get("messageId"))
            out.write(msg + "\n")
            if args.quiet:
                continue
            for s in m.get("streams", []):
                for e in s.get("events", []):
                    print(f"{s.get('streamName')}: {e.get('eventType')} "
                          f"{e.get('tableName', '')} window {e.get('windowStart')}.."
                          f"{e.get('windowEnd')} result {json.dumps(e.get('result'))}",
                          flush=True)

    async def serve():
        async with websockets.serve(handler, args.host, args.port):
            await asyncio.Future()

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
