ALTER TABLE businesses DROP COLUMN cursor_key;
