// Package ent holds the generated entgo.io client for mcpreg's storage.
package ent

//go:generate go run ./entc
