package identity

// Sign-in throttle settings, for the tests of package identity_test.
const (
	FailureBurst    = failureBurst
	FailureInterval = failureInterval
)
