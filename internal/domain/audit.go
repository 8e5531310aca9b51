package domain

// AuditRecord is what a change says about itself; the audit chain adds
// sequence, time and hashes.
type AuditRecord struct {
	Actor     string
	Action    string
	Subject   string
	Before    string
	After     string
	Reason    string
	RequestID string
	Details   string
}
