// Resolves every date of a reference export with the reference system's own resolveDate
// (src/lib/schedule.js), its state read from the export as server/db.js getState reads its
// database, and writes the rows as the sessions-*.json files beside it hold them.
//
// It runs in a checkout of the reference system (Koredyne/recurring-scheduler, commit 52d2a5a):
//   cp resolve.mjs CHECKOUT/ && cd CHECKOUT && node resolve.mjs export-gym-twins.json 2026-12-06 2027-02-27
// Run on the export-{gym,clinic,office}.json here it gives the rows of their sessions-*.json.
import fs from 'node:fs';
import { resolveDate, indexState } from './src/lib/schedule.js';
import { addDays } from './src/lib/dates.js';

const [file, from, to] = process.argv.slice(2);
const x = JSON.parse(fs.readFileSync(file, 'utf8'));
const T = x.tables;
const coachName = new Map(T.coaches.map((c) => [c.id, c.name]));
const act = new Map(T.activities.map((a) => [a.id, a]));
// getState: extra coaches ORDER BY cc.class_id, cc.sort, co.name
const links = [...(T.class_coaches || [])].sort((a, b) => a.class_id - b.class_id || a.sort - b.sort || (coachName.get(a.coach_id) < coachName.get(b.coach_id) ? -1 : coachName.get(a.coach_id) > coachName.get(b.coach_id) ? 1 : 0));
const extra = new Map();
for (const r of links) extra.set(r.class_id, [...(extra.get(r.class_id) || []), { id: r.coach_id, name: coachName.get(r.coach_id) }]);
const classes = T.classes.map((c) => {
  const a = act.get(c.activity_id);
  const all = [{ id: c.coach_id, name: coachName.get(c.coach_id) }, ...(extra.get(c.id) || [])];
  return { ...c, activity: a.name, color: a.color, coach: all[0].name, coach_ids: all.map((y) => y.id), coaches: all.map((y) => y.name) };
});
const byOrder = (...keys) => (a, b) => { for (const k of keys) { if (a[k] < b[k]) return -1; if (a[k] > b[k]) return 1; } return 0; };
const state = {
  areas: [...T.areas].sort(byOrder('sort', 'id')),
  classes,
  slots: [...T.slots].sort(byOrder('area_id', 'day', 'start_time')),
  packages: [...T.packages].sort(byOrder('anchor_date', 'id')),
  entries: [...T.package_entries].sort(byOrder('package_id', 'slot_id', 'week_position')),
  oneOffs: [...(T.one_offs || [])].sort(byOrder('date', 'start_time')),
  oneOffMembers: T.one_off_members || [],
  members: T.members || [],
  changes: [...(T.session_changes || [])].sort(byOrder('date')),
};
const idx = indexState(state);
const days = [];
for (let d = from; d <= to; d = addDays(d, 1)) {
  days.push({
    date: d,
    sessions: resolveDate(state, d, idx).map((s) => ({
      date: s.date,
      start_time: s.slot.start_time,
      end_time: s.slot.end_time,
      room: s.area?.name,
      slot_id: s.slot.id,
      class_id: s.cls.id,
      activity: s.cls.activity,
      coaches: s.cls.coaches,
      package: s.pkg ? s.pkg.name : null,
      one_off_id: s.oneOff ? s.oneOff.id : null,
      gap: !!s.gap,
      cancelled: !!s.cancelled,
      origin: s.origin ? { date: s.origin.date } : null,
    })),
  });
}
process.stdout.write(`{"from": ${JSON.stringify(from)}, "to": ${JSON.stringify(to)}, "days": [\n${days.map((d) => JSON.stringify(d)).join(",\n")}\n]}\n`);
