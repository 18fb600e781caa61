package host

import "testing"

// A call's arguments: an object, none, or a refusal that says what is wrong with them; a
// number past what a float64 holds is named, not called "not an object".
func TestArgumentsAreAnObjectOfNumbersThatFit(t *testing.T) {
	for raw, want := range map[string]string{
		`{"x":1e400}`:          "the arguments hold the number 1e400, past the largest there may be (about 1.8e308)",
		`{"a":{"b":[-1e999]}}`: "the arguments hold the number -1e999, past the largest there may be (about 1.8e308)",
		`[1,2]`:                "arguments must be a JSON object",
		`"x"`:                  "arguments must be a JSON object",
	} {
		if _, err := decodeArguments([]byte(raw)); err == nil || err.Message != want {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	if args, err := decodeArguments([]byte(`{"x":1e308}`)); err != nil || args["x"] != 1e308 {
		t.Errorf("1e308: %v %v", args, err)
	}
	if args, err := decodeArguments(nil); err != nil || args != nil {
		t.Errorf("none: %v %v", args, err)
	}
}
