#!/usr/bin/python3
"""Fetch calendars the way DAVx5 does, or ask for two years in a loop.

usage: multiget.py URL USER PASSWORD START DAYS year
       multiget.py URL USER PASSWORD START DAYS loop N NAME

year: for every calendar, list the hrefs of its events from START for DAYS
days (a calendar-query asking for ETags only), then fetch them in
calendar-multiget REPORTs of 50, as DAVx5 does; prints
{"calendars": n, "requests": r, "events": e}.

loop: ask the calendar whose name starts with NAME for DAYS days, N times
or until the server refuses; prints {"requests": r, "error": "..."}.
"""

import json
import re
import sys
from datetime import datetime, timedelta

import caldav

LIST = """<?xml version="1.0" encoding="utf-8"?>
<C:calendar-query xmlns:D="DAV:" xmlns:C="urn:ietf:params:xml:ns:caldav">
 <D:prop><D:getetag/></D:prop>
 <C:filter><C:comp-filter name="VCALENDAR"><C:comp-filter name="VEVENT">
  <C:time-range start="%s" end="%s"/>
 </C:comp-filter></C:comp-filter></C:filter>
</C:calendar-query>"""


def stamp(t):
    return t.strftime("%Y%m%dT%H%M%SZ")


def main(url, user, password, start, days, mode, n=0, name=""):
    start = datetime.fromisoformat(start)
    end = start + timedelta(days=int(days))
    with caldav.DAVClient(url=url, username=user, password=password) as client:
        calendars = client.principal().calendars()
        if mode == "year":
            requests, events = 0, 0
            for cal in calendars:
                resp = client.report(str(cal.url), LIST % (stamp(start), stamp(end)), depth=1)
                requests += 1
                if resp.status != 207:
                    sys.exit("listing %s: %d" % (cal.url, resp.status))
                raw = resp.raw.decode() if isinstance(resp.raw, bytes) else resp.raw
                hrefs = re.findall(r"<D:href>([^<]+\.ics)</D:href>", raw)
                for i in range(0, len(hrefs), 50):
                    got = cal.calendar_multiget([cal.url.join(h) for h in hrefs[i:i + 50]])
                    requests += 1
                    events += len(got)
            json.dump({"calendars": len(calendars), "requests": requests, "events": events}, sys.stdout)
        else:
            cal = [c for c in calendars if c.name.startswith(name)][0]
            done = 0
            error = ""
            for _ in range(int(n)):
                try:
                    cal.search(start=start, end=end, event=True, expand=False)
                except Exception as e:  # python-caldav does not retry a 429
                    error = "%s: %s" % (type(e).__name__, e)
                    break
                done += 1
            json.dump({"requests": done, "error": error, "calendar": str(cal.url)}, sys.stdout)
        print()


if __name__ == "__main__":
    if len(sys.argv) not in (7, 9):
        sys.exit(__doc__)
    main(*sys.argv[1:])
