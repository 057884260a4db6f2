-- Dates are held from 1900-01-01 to 2199-12-31 (engine/civil.go). Rows
-- written before the window existed may run past it (a closure or capacity
-- rule "to 9999-12-31"); nothing happens after 2199-12-31, so their ends
-- become the window's end (an open end for a series), which changes no
-- session, and rules that only begin after it go. Dates before 1900 are
-- left alone: a business holding one fails to load with a message naming
-- the date, for its owner to correct.
DELETE FROM closure_rooms WHERE closure_id IN (SELECT id FROM closures WHERE from_date > '2199-12-31');

--bun:split

DELETE FROM closures WHERE from_date > '2199-12-31';

--bun:split

UPDATE closures SET to_date = '2199-12-31' WHERE to_date > '2199-12-31';

--bun:split

DELETE FROM capacity_rules WHERE from_date > '2199-12-31';

--bun:split

UPDATE capacity_rules SET to_date = '2199-12-31' WHERE to_date > '2199-12-31';

--bun:split

UPDATE subscriptions SET end_date = '2199-12-31' WHERE end_date > '2199-12-31';

--bun:split

UPDATE series SET end_date = NULL WHERE end_date > '2199-12-31';
