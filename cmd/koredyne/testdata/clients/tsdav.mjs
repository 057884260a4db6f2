// Discovers a CalDAV account and fetches every calendar with tsdav, the
// CalDAV client of most JavaScript apps, on its default settings (Node's
// own fetch, which asks for gzip), and prints JSON:
//
//   node tsdav.mjs SERVER USER PASSWORD
//   {"principal": URL, "home": URL,
//    "calendars": [{"url": URL, "name": "...", "ctag": "...", "syncToken": "...", "uids": [...]}]}
//
// SERVER is what a user types: the server's address, from which tsdav finds
// the calendars itself (/.well-known/caldav, RFC 6764). Each calendar's
// objects are fetched as tsdav does by default: a calendar-query for their
// hrefs, then one calendar-multiget for their data. A failure (tsdav throws
// "cannot find principalUrl" when discovery answers are not XML to it) is
// printed on stderr with exit status 1.
import { DAVClient } from "tsdav";
import ICAL from "ical.js";

if (process.argv.length !== 5) {
  console.error("usage: node tsdav.mjs SERVER USER PASSWORD");
  process.exit(2);
}
const [serverUrl, username, password] = process.argv.slice(2);

try {
  const client = new DAVClient({
    serverUrl,
    credentials: { username, password },
    authMethod: "Basic",
    defaultAccountType: "caldav",
  });
  await client.login();
  const out = { principal: client.account.principalUrl, home: client.account.homeUrl, calendars: [] };
  for (const calendar of await client.fetchCalendars()) {
    const objects = await client.fetchCalendarObjects({ calendar });
    const uids = [];
    for (const o of objects) {
      if (!o.data) {
        throw new Error(`${o.url}: no calendar data`);
      }
      const root = new ICAL.Component(ICAL.parse(o.data));
      for (const vevent of root.getAllSubcomponents("vevent")) {
        uids.push(vevent.getFirstPropertyValue("uid"));
      }
    }
    out.calendars.push({
      url: calendar.url,
      name: typeof calendar.displayName === "string" ? calendar.displayName : JSON.stringify(calendar.displayName),
      ctag: calendar.ctag ?? "",
      syncToken: calendar.syncToken ?? "",
      uids: uids.sort(),
    });
  }
  process.stdout.write(JSON.stringify(out) + "\n");
} catch (err) {
  console.error(err.stack ?? String(err));
  process.exit(1);
}
