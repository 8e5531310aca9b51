package auditchain

// SignText signs any text as a note, for tests that need notes a trusted
// key signed but Sign would not write.
var SignText = signText
