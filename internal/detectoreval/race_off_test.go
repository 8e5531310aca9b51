//go:build !race

package detectoreval_test

const raceEnabled = false
