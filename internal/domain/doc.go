// Package domain is the vocabulary every service shares: who calls
// (Caller, Role), the sentinel errors the transport maps to statuses, and
// what an audited change says about itself (AuditRecord).
package domain
