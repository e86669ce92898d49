#!/usr/bin/env python3
"""An example bot account for Șeptică, on the standard library alone.

It takes the seats hosts keep for it, finds the matches it sits in, reads each match's stream line by
line and, on its turn, posts one of the legal actions the line lists, with the line's version.

Run it with the site's address and a token its owner made on the API tokens page (scope ``bot``):

    SEPTICA_URL=https://example.org SEPTICA_TOKEN=sep_... python3 examples/septica_bot.py

It chooses as the site's normal bot does when run from the repository (the bots' policies need the
game engine only), else at random; write your own ``choose``.
"""

import argparse
import json
import os
import random
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

API = "/api/v1/bot"
STREAMS = 4
"""Matches played at once: a token holds at most this many streams open (API_STREAMS_PER_TOKEN)."""


class Site:
    """The API, seen with one token: JSON in and out, a ``429`` waited out as its Retry-After says."""

    def __init__(self, url: str, token: str):
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}

    def open(self, method: str, path: str, body: dict | None = None, timeout: float = 30):
        data = json.dumps(body).encode() if body is not None else None
        while True:
            request = urllib.request.Request(self.url + path, data, self.headers, method=method)
            try:
                return urllib.request.urlopen(request, timeout=timeout)
            except urllib.error.HTTPError as error:
                if error.code != 429:
                    raise
                time.sleep(float(error.headers.get("Retry-After") or 5))

    def call(self, method: str, path: str, body: dict | None = None):
        """The answer's JSON, a refusal's too (``{"detail": why}``): 409 for a move the match moved on
        from or a seat taken meanwhile, 404 for an offer gone. A bad token (401, 403) stops the bot."""
        try:
            with self.open(method, path, body) as response:
                return json.load(response)
        except urllib.error.HTTPError as error:
            if error.code not in (404, 409):
                raise
            return json.load(error)


def site_policy(level: str):
    """The site's own bot of ``level`` if the repository is at hand, else None."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    try:
        from bots.policies import choose
    except ImportError:
        return None
    return lambda line, rng: choose(line["view"], line["legal"], level, rng, history=line["round"])


def at_random(line: dict, rng: random.Random) -> dict:
    """Any of the legal actions: the simplest bot there is."""
    return rng.choice(line["legal"])


def play(site: Site, match_id: int, choose) -> str:
    """Play one match to its end; its last status ("finished", or "aborted" if it was closed)."""
    rng = random.Random()
    while True:
        # A ping line comes at least every 20 seconds: a minute of silence is a connection lost.
        with site.open("GET", f"{API}/games/{match_id}/stream", timeout=60) as stream:
            for raw in stream:
                line = json.loads(raw)
                if line["type"] == "reconnect":
                    break  # the stream's hour is up: open another
                if line["type"] != "state":
                    continue  # a ping
                if line["status"] != "playing":
                    print(f"match {match_id}: {line['status']}, {line['result']}", file=sys.stderr)
                    return line["status"]
                if line["your_turn"]:
                    move = {"action": choose(line, rng), "version": line["version"]}
                    # Refused (409) when the match moved on meanwhile: the next line says where it stands.
                    site.call("POST", f"{API}/games/{match_id}/move", move)
            else:
                raise ConnectionError(f"match {match_id}: the stream ended before the match")


def run(site: Site, choose, *, once: bool, poll: float) -> int:
    """Take the seats offered and play each match in a thread of its own, for ever; ``once``: the
    matches found at the first look that finds any, then exit (1 if one of them failed)."""
    playing: dict[int, Future] = {}
    with ThreadPoolExecutor(STREAMS) as threads:
        while True:
            if not (once and playing):
                for offer in site.call("GET", f"{API}/offers"):
                    site.call("POST", f"{API}/offers/{offer['table_id']}/accept")
                for game in site.call("GET", f"{API}/games")[:STREAMS]:
                    if game["match_id"] not in playing:
                        print(f"match {game['match_id']}: playing {game['game']}", file=sys.stderr)
                        playing[game["match_id"]] = threads.submit(play, site, game["match_id"], choose)
            for match_id, future in list(playing.items()):
                if future.done() and future.exception():
                    print(f"match {match_id}: {future.exception()!r}", file=sys.stderr)
            if once and playing and all(future.done() for future in playing.values()):
                return int(any(future.exception() for future in playing.values()))
            if not once:  # a match whose stream was lost is listed again, and resumed
                playing = {match_id: future for match_id, future in playing.items() if not future.done()}
            time.sleep(poll)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("SEPTICA_URL"), help="the site (SEPTICA_URL)")
    parser.add_argument("--token", default=os.environ.get("SEPTICA_TOKEN"), help="a token (SEPTICA_TOKEN)")
    parser.add_argument("--level", default="normal", choices=["easy", "normal", "hard"])
    parser.add_argument("--random", action="store_true", help="play at random, even with the site's bot")
    parser.add_argument("--poll", type=float, default=3.0, help="seconds between looks for new matches")
    parser.add_argument("--once", action="store_true", help="play the next matches to their end, then exit")
    args = parser.parse_args()
    if not args.url or not args.token:
        parser.error("give the site's address and a token (--url/--token or SEPTICA_URL/SEPTICA_TOKEN)")
    choose = None if args.random else site_policy(args.level)
    print(f"choosing as the site's {args.level} bot" if choose else "choosing at random", file=sys.stderr)
    return run(Site(args.url, args.token), choose or at_random, once=args.once, poll=args.poll)


if __name__ == "__main__":
    sys.exit(main())
