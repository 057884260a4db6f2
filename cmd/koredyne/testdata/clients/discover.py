#!/usr/bin/python3
"""Walk a CalDAV server the way python-caldav applications do.

usage: discover.py URL USER PASSWORD START END

URL is where discovery starts (a /caldav/ root or /.well-known/caldav);
START and END are ISO 8601 instants with an offset. Finds the principal and
its calendars, runs a time-range search on the business calendar (the one
whose URL ends in /all/) and prints JSON:

  {"principal": URL, "calendars": [{"name": ..., "url": ...}],
   "searched": URL, "count": N, "uids": [...]}
"""

import json
import sys
from datetime import datetime

import caldav


def main(url, user, password, start, end):
    start, end = datetime.fromisoformat(start), datetime.fromisoformat(end)
    with caldav.DAVClient(url=url, username=user, password=password) as client:
        principal = client.principal()
        calendars = principal.calendars()
        business = [c for c in calendars if str(c.url).rstrip("/").endswith("/all")]
        if not business:
            sys.exit("no calendar ends in /all/ among %s" % [str(c.url) for c in calendars])
        # python-caldav 0.11: search() sends a calendar-query with a
        # time-range; date_search() is its deprecated wrapper.
        events = business[0].search(start=start, end=end, event=True, expand=False)
        uids = []
        for ev in events:
            for comp in ev.icalendar_instance.walk("VEVENT"):
                uids.append(str(comp["UID"]))
        json.dump({
            "principal": str(principal.url),
            "calendars": [{"name": c.name, "url": str(c.url)} for c in calendars],
            "searched": str(business[0].url),
            "count": len(events),
            "uids": sorted(uids),
        }, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
