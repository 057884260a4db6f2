ALTER TABLE api_tokens DROP COLUMN staff_id;
--bun:split
ALTER TABLE api_tokens DROP COLUMN client_id;
--bun:split
DROP TABLE IF EXISTS session_bookings;
--bun:split
DROP TABLE IF EXISTS room_bookings;
--bun:split
DROP TABLE IF EXISTS capacity_rules;
