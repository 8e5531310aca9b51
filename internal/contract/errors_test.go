package contract

import (
	"errors"
	"testing"
)

func asValidation(err error, target **ValidationError) bool { return errors.As(err, target) }

func TestErrorsMatchTheirSentinel(t *testing.T) {
	v := invalid(Violation{Pointer: "/b", Message: "y"}, Violation{Pointer: "/a", Message: "x"}, Violation{Pointer: "/a", Message: "x"})
	if got := v.Error(); got != "contract: invalid contract: /a: x; /b: y" {
		t.Errorf("Error() = %q", got)
	}
	if !errors.Is(v, ErrInvalid) || errors.Is(v, ErrTooLarge) {
		t.Error("ValidationError must match ErrInvalid only")
	}
	l := &LimitError{Reason: "too big"}
	if !errors.Is(l, ErrTooLarge) || errors.Is(l, ErrInvalid) || l.Error() != "contract: contract over limit: too big" {
		t.Errorf("LimitError = %q", l.Error())
	}
	if (Violation{Message: "m"}).String() != "/: m" {
		t.Error("root pointer renders as /")
	}
}
