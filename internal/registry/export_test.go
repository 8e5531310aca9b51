package registry

// Sign-in throttle settings, for the tests of package registry_test.
const (
	FailureBurst    = failureBurst
	FailureInterval = failureInterval
)
