-- The ends cut to the window are not restored: they changed no session.
SELECT 1;
