// Package migrations embeds mcpreg's versioned SQL migrations, one folder per
// database dialect, in goose format. The files are generated from the ent
// schema by ./gen (never edited by hand); atlas.sum beside them is atlas's
// checksum of the folder, which goose ignores and the tests verify.
package migrations
