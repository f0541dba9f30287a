"""Pure game rules: no I/O, no asyncio, no clock, no global randomness."""
