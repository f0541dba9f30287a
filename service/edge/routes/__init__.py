"""HTTP controllers, one per resource: decode, call the service, encode."""
