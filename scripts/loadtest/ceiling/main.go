// Command ceiling serves a fixed byte slice over plain net/http: the upper
// bound a Go HTTP handler reaches on this machine, to compare the
// registry's discovery reads against (same size, same load tool).
//
//	go run ./scripts/loadtest/ceiling -addr 127.0.0.1:18090 -size 12345
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:18090", "listen address")
	size := flag.Int("size", 4096, "response size in bytes")
	flag.Parse()
	body := bytes.Repeat([]byte("x"), *size)
	log.Fatal(http.ListenAndServe(*addr, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body)
	})))
}
