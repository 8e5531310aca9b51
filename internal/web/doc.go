// Package web is the reviewers' browser UI: sign-in with sessions in
// cookies, the review queue, the version review page (server.json facts,
// attestations, pins, capability contract, tools, findings and drift with
// word-level diffs), servers, quarantine, the audit log and, for admins,
// tokens. Pages are server-rendered with html/template and work without
// JavaScript; templates and assets are embedded in the binary.
//
// The UI calls the same registry service methods as the REST and gRPC API,
// with the signed-in principal as caller, so the same authorisation rules
// apply, four-eyes included. Every state-changing form carries the
// session's CSRF token, and cross-origin browser POSTs are refused
// (http.CrossOriginProtection).
package web
