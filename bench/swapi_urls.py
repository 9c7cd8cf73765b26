#!/usr/bin/env python3
"""Every URL a full SWAPI sync reads, by walking the server the way a plain script would: each
collection's pages through `next`, then each resource's own URL. Printed one per line, with the
links' https://swapi.dev rewritten to the local base."""
import json
import sys
import urllib.request

base = sys.argv[1].rstrip("/")  # http://127.0.0.1:PORT/api


def local(link):
    return link.replace("https://swapi.dev/api", base)


for collection in ["films", "people", "planets", "species", "starships", "vehicles"]:
    page = f"{base}/{collection}/"
    while page:
        print(page)
        with urllib.request.urlopen(page) as response:
            body = json.load(response)
        for item in body["results"]:
            print(local(item["url"]))
        page = local(body["next"]) if body.get("next") else None
