// Fetches an .ics feed as a web app does (Node's fetch, on its defaults:
// it asks for gzip), reads it with Mozilla's ical.js and prints, as JSON,
// every VEVENT's UID and its DTSTART/DTEND as UTC instants:
//
//   node instants.mjs URL
//   [{"uid": "...", "tzid": "Europe/Berlin", "start": "2027-03-28T08:00:00.000Z", "end": "..."}]
//
// The instants come from the file's own VTIMEZONEs, registered with
// ICAL.TimezoneService as calendar apps built on ical.js do. A DTSTART whose
// TZID no VTIMEZONE defines is an error rather than a floating time: the
// test is about how the file's zones are read.
import ICAL from "ical.js";

if (process.argv.length !== 3) {
  console.error("usage: node instants.mjs URL");
  process.exit(2);
}

const resp = await fetch(process.argv[2]);
const type = resp.headers.get("content-type") ?? "";
if (!resp.ok || !type.startsWith("text/calendar")) {
  console.error(`GET ${process.argv[2]}: ${resp.status}, Content-Type ${JSON.stringify(type)}`);
  process.exit(1);
}
const root = new ICAL.Component(ICAL.parse(await resp.text()));
for (const vtz of root.getAllSubcomponents("vtimezone")) {
  ICAL.TimezoneService.register(vtz);
}

function instant(uid, prop) {
  const tzid = prop.getParameter("tzid");
  const t = prop.getFirstValue();
  if (tzid && !(ICAL.TimezoneService.has(tzid) && t.zone && t.zone.tzid === tzid)) {
    throw new Error(`${uid}: ${prop.name.toUpperCase()} has TZID ${tzid}, which no VTIMEZONE of the file defines`);
  }
  return { tzid: tzid || null, iso: new Date(t.toUnixTime() * 1000).toISOString() };
}

const out = [];
for (const vevent of root.getAllSubcomponents("vevent")) {
  const uid = vevent.getFirstPropertyValue("uid");
  const start = instant(uid, vevent.getFirstProperty("dtstart"));
  const end = instant(uid, vevent.getFirstProperty("dtend"));
  out.push({ uid, tzid: start.tzid, start: start.iso, end: end.iso });
}
process.stdout.write(JSON.stringify(out, null, 1) + "\n");
