"""Occurrences of iCalendar files, worked out by an implementation
independent of the Go code under test: python-icalendar reads the file,
python-recurring-ical-events (on python-dateutil) expands the repeating
events, EXDATEs and RECURRENCE-ID overrides.

    occurrences.py FILE FROM TO ZONE
        prints, as JSON, every occurrence that starts on a date FROM <= d < TO
        (YYYY-MM-DD) on the clock of ZONE, leaving out STATUS:CANCELLED ones:
        uid, date (on ZONE's clock), start and end (Unix seconds), summary,
        location.

    occurrences.py --rrule < rules.json
        reads [{"dtstart": "YYYYMMDDTHHMMSS", "rule": "FREQ=...", "until":
        "YYYY-MM-DD"}, ...] and prints, for each, the dates dateutil's
        rrulestr gives from DTSTART up to UNTIL (floating times).

Exit status 3 means a module is missing.
"""
import datetime
import json
import sys
import warnings

warnings.simplefilter("ignore")  # dateutil warns about COUNT with UNTIL

try:
    from zoneinfo import ZoneInfo

    import icalendar
    import recurring_ical_events
    from dateutil.rrule import rrulestr
except ImportError as err:  # the Go test skips, or fails under CI
    print("missing module: %s" % err, file=sys.stderr)
    sys.exit(3)


def day(s):
    return datetime.date.fromisoformat(s)


def occurrences(path, start, stop, zone):
    tz = ZoneInfo(zone)
    with open(path, "rb") as f:
        cal = icalendar.Calendar.from_ical(f.read())
    a = start - datetime.timedelta(days=2)
    b = stop + datetime.timedelta(days=2)
    out = []
    for ev in recurring_ical_events.of(cal).between((a.year, a.month, a.day), (b.year, b.month, b.day)):
        if str(ev.get("STATUS", "")).upper() == "CANCELLED":
            continue
        s, e = ev["DTSTART"].dt, ev["DTEND"].dt
        if not isinstance(s, datetime.datetime):
            out.append({"uid": str(ev.get("UID")), "date": s.isoformat(), "allDay": True,
                        "summary": str(ev.get("SUMMARY", "")), "location": str(ev.get("LOCATION", ""))})
            continue
        if s.tzinfo is None:  # floating: the business's clock
            s, e = s.replace(tzinfo=tz), e.replace(tzinfo=tz)
        local = s.astimezone(tz).date()
        if not (start <= local < stop):
            continue
        out.append({
            "uid": str(ev.get("UID")),
            "date": local.isoformat(),
            "start": int(s.timestamp()),
            "end": int(e.timestamp()),
            "summary": str(ev.get("SUMMARY", "")),
            "location": str(ev.get("LOCATION", "")),
        })
    out.sort(key=lambda o: (o.get("start", 0), o["summary"], o["location"], o["uid"]))
    return out


def rrules(cases):
    out = []
    for c in cases:
        start = datetime.datetime.strptime(c["dtstart"], "%Y%m%dT%H%M%S")
        until = datetime.datetime.combine(day(c["until"]), datetime.time(23, 59, 59))
        # An UNTIL of its own stops dateutil at the end of the range even
        # for rules that give no dates (it would search up to year 9999).
        rule = rrulestr(c["rule"], dtstart=start).replace(until=until)
        out.append([d.date().isoformat() for d in rule.between(start, until, inc=True)])
    return out


def main():
    if sys.argv[1:2] == ["--rrule"]:
        json.dump(rrules(json.load(sys.stdin)), sys.stdout)
        return
    path, start, stop, zone = sys.argv[1:5]
    json.dump(occurrences(path, day(start), day(stop), zone), sys.stdout)


main()
