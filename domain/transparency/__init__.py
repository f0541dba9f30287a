"""The transparency log's pure parts: RFC 9162 Merkle hashing and proofs (`merkle`), and which events of a
stream become leaves and how a leaf is written (`leaves`)."""
