#!/usr/bin/env python3
"""What a script would use instead of reader for a cached read: requests-cache, reading URL
from its own SQLite cache (never expiring, so a read after the first makes no request)."""
import sys

import requests_cache

cache, url = sys.argv[1], sys.argv[2]
session = requests_cache.CachedSession(cache, backend="sqlite", expire_after=requests_cache.NEVER_EXPIRE)
sys.stdout.write(session.get(url).text)
