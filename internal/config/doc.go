// Package config is mcpregd's configuration: every flag of `mcpregd serve`
// as one Config value, its defaults, and Verify, which checks all of it
// before anything opens. It reads no files and opens nothing; the wiring
// package turns a verified Config into services, and the transport reads
// the settings it serves with (addresses, TLS, body limits, single sign-on).
package config
