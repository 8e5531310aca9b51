package server

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// nulTextInterceptor refuses a request with a string field holding the
// NUL character (U+0000), naming the field. PostgreSQL cannot store it in
// text: a review reason carrying one failed with an internal error there
// and was stored on SQLite. No field of mcpreg's API needs it.
func nulTextInterceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	if m, ok := req.(proto.Message); ok {
		if path := nulField(m.ProtoReflect(), ""); path != "" {
			return nil, status.Errorf(codes.InvalidArgument,
				"%s holds the NUL character (\\u0000), which mcpreg does not store; remove it", path)
		}
	}
	return h(ctx, req)
}

// nulField is the path of the first string field of m (at any depth) that
// holds a NUL character, or "".
func nulField(m protoreflect.Message, prefix string) string {
	var found string
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		path := prefix + fd.JSONName()
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				if found = nulValue(fd, l.Get(i), path); found != "" {
					return false
				}
			}
		case fd.IsMap():
			v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
				if strings.ContainsRune(k.String(), 0) {
					found = path
				} else {
					found = nulValue(fd.MapValue(), mv, path)
				}
				return found == ""
			})
		default:
			found = nulValue(fd, v, path)
		}
		return found == ""
	})
	return found
}

func nulValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, path string) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if strings.ContainsRune(v.String(), 0) {
			return path
		}
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return nulField(v.Message(), path+".")
	}
	return ""
}
