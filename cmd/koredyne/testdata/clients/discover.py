#!/usr/bin/python3
"""Walk a CalDAV server the way python-caldav applications do.

usage: discover.py URL USER PASSWORD START END

URL is where discovery starts (a /caldav/ root or /.well-known/caldav);
START and END are ISO 8601 instants with an offset. Finds the principal and
its calendars, runs a time-range search on the business calendar (the one
whose URL ends in /all/) and prints JSON:

  {"principal": URL, "calendars": [{"name": ..., "url": ...}],
   "searched": URL, "count": N, "uids": [...],
   "expanded": [{"uid": ..., "start": UTC ISO 8601, "utc": bool, "vtimezone": bool}]}

"expanded" is the same search with expand=True, which sends CALDAV:expand
(RFC 4791 section 9.6.5): for each event, its UID, its start, whether
DTSTART and DTEND are UTC date-times (no TZID) and whether its calendar
still carries a VTIMEZONE.
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
        expanded = []
        for ev in business[0].search(start=start, end=end, event=True, expand=True):
            cal = ev.icalendar_instance
            for comp in cal.walk("VEVENT"):
                s, e = comp["DTSTART"], comp["DTEND"]
                expanded.append({
                    "uid": str(comp["UID"]),
                    "start": s.dt.isoformat(),
                    "utc": all("TZID" not in p.params and p.to_ical().endswith(b"Z") for p in (s, e)),
                    "vtimezone": bool(cal.walk("VTIMEZONE")),
                })
        expanded.sort(key=lambda x: x["uid"])
        json.dump({
            "principal": str(principal.url),
            "calendars": [{"name": c.name, "url": str(c.url)} for c in calendars],
            "searched": str(business[0].url),
            "count": len(events),
            "uids": sorted(uids),
            "expanded": expanded,
        }, sys.stdout, indent=1)
        print()


if __name__ == "__main__":
    if len(sys.argv) != 6:
        sys.exit(__doc__)
    main(*sys.argv[1:])
