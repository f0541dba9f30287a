-- sign_in_failures now counts every sign-in attempt (before its hash), under keys per login and address,
-- per login and per address (service.commands.accounts). Keys that are never tried again leave a row
-- whose window is over; each attempt deletes a few of those oldest rows, found by this index.
CREATE INDEX IF NOT EXISTS sign_in_failures_window ON sign_in_failures (window_start);
