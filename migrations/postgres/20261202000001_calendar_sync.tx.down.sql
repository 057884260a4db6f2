DROP TABLE IF EXISTS sync_states;
--bun:split
DROP TABLE IF EXISTS app_passwords;
--bun:split
DROP TABLE IF EXISTS feed_tokens;
--bun:split
DROP TABLE IF EXISTS tombstones;
--bun:split
DROP TABLE IF EXISTS revisions;
--bun:split
ALTER TABLE businesses DROP COLUMN settings_revision;
--bun:split
ALTER TABLE closures DROP COLUMN revision;
--bun:split
ALTER TABLE day_changes DROP COLUMN revision;
--bun:split
ALTER TABLE one_offs DROP COLUMN revision;
--bun:split
ALTER TABLE plans DROP COLUMN revision;
--bun:split
ALTER TABLE series_entries DROP COLUMN revision;
--bun:split
ALTER TABLE series DROP COLUMN revision;
--bun:split
ALTER TABLE class_times DROP COLUMN revision;
--bun:split
ALTER TABLE classes DROP COLUMN revision;
--bun:split
ALTER TABLE activities DROP COLUMN revision;
--bun:split
ALTER TABLE staff DROP COLUMN revision;
--bun:split
ALTER TABLE rooms DROP COLUMN revision;
