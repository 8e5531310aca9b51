//go:build race

package detectoreval_test

// raceEnabled: the race detector slows training tenfold.
const raceEnabled = true
