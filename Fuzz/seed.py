#!/usr/bin/env python3
"""Writes the fuzzer's seed corpus from the recorded responses, at run time (they are never copied
into the repository). Each seed is three header bytes then the body, as AnswerFuzzing reads them:
the status (an index into AnswerFuzzing.statuses), the content type (an index into
AnswerFuzzing.contentTypes) and the header flags."""
import json
import os
import sys

STATUSES = [200, 200, 201, 204, 301, 304, 400, 401, 403, 404, 410, 429, 451, 500, 502, 503, 504]
JSON, NONE, HTML = 0, 2, 3


def header(status, content_type, flags=0):
    return bytes([STATUSES.index(status) if status in STATUSES else 0, content_type, flags])


def main(fixtures, out):
    os.makedirs(out, exist_ok=True)
    swapi = os.path.join(fixtures, "swapi")
    recorded = {r["file"]: r for r in json.load(open(os.path.join(swapi, "responses.json")))}
    seeds = {}
    for name in sorted(os.listdir(swapi)):
        if name == "responses.json":
            continue
        body = open(os.path.join(swapi, name), "rb").read()
        status = recorded.get(name, {}).get("status", 200)
        kind = HTML if name.endswith(".html") else JSON
        seeds["swapi-" + name] = header(status, kind) + body
        seeds["swapi-" + name + "-no-type"] = header(status, NONE) + body
    reddit = os.path.join(fixtures, "reddit")
    for name in sorted(os.listdir(reddit)):
        if name == "SOURCES.txt":
            continue
        body = open(os.path.join(reddit, name), "rb").read()
        status = int(name.split("_")[1]) if name.startswith(("error_", "redirect_")) else 200
        kind = HTML if name.endswith(".html") else JSON
        seeds["reddit-" + name] = header(status, kind) + body
        if name.startswith("error_429"):
            # With Reddit's rate-limit headers and a Retry-After, as the real 429 sends them.
            seeds["reddit-" + name + "-headers"] = header(status, kind, 0x05) + body
    seeds["token"] = header(200, JSON) + b'{"access_token": "abc-123", "token_type": "bearer", "expires_in": 86400, "scope": "*"}'
    seeds["token-refused"] = header(401, JSON) + b'{"message": "Unauthorized", "error": 401}'
    seeds["retry-after-text"] = header(429, JSON, 0x81) + b"Wed, 21 Oct 2015 07:28:00 GMT\n{}"
    for name, data in seeds.items():
        with open(os.path.join(out, name), "wb") as f:
            f.write(data)
    print(f"{len(seeds)} seeds from {fixtures}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
