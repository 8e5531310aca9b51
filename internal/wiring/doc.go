// Package wiring builds the services from a configuration: ServiceOptions
// verifies a config.Config and turns it into registry options (limits, the
// scan sandbox and launch templates, the npm fetcher, trusted roots, the
// discovery signer, checkpoints), and NewServices builds the registry and
// identity services over an opened store. `mcpregd serve` and the test
// server (servertest) both build through it; a layering test keeps every
// other package from importing it.
package wiring
