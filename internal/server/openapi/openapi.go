// Package openapi embeds the OpenAPI (Swagger 2.0) document generated from
// the protobuf API by protoc-gen-openapiv2.
package openapi

import _ "embed"

// Document is the REST API description served at /openapi.json.
//
//go:embed mcpreg.swagger.json
var Document []byte
