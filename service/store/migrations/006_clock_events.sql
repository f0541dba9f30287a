-- The timeout worker reads the clock events past its read model's checkpoint directly (the read
-- model waits for the global-order horizon; a clock must not): only these types, by (tx, position).
CREATE INDEX IF NOT EXISTS events_clock_tx ON events (tx, position)
    WHERE type IN ('table.ClockSet', 'table.GameEnded', 'table.GameAborted');
