// Package fetch obtains the exact package artifact a version names, checks
// it against the digest the version declares and the integrity its package
// registry publishes, and prepares it to run, so the scanner reads the
// server that was published and not whatever a package manager resolves at
// launch time.
//
// Nothing in a package steers its own preparation: npm runs with
// configuration the registry writes (every .npmrc, .yarnrc* and .pnpmrc of
// the package is dropped), with an environment built from nothing, with
// git disabled, without install scripts, and only after every dependency
// spec was found to be a registry version or range. npm itself runs
// through a Runner, which may confine it further.
package fetch
