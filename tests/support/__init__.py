"""Test-only support: given / when / then for the rules, the listing checker (testkit/ has what benchmarks share)."""
