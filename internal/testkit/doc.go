// Package testkit holds the helpers every test suite shares: skipping loudly
// (or failing under MCPREG_TEST_REQUIRE_ALL=1) when an outside component is
// missing, golden files with -update, polling with Eventually, a settable
// clock, and paths from the repository root that survive package moves.
//
// It is imported only from _test.go files and test-support packages.
package testkit
