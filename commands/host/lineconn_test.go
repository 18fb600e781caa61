package host

import (
	"strings"
	"testing"
)

// A call whose arguments nest deeper than the SDK decodes is refused in those words, not as
// "not a JSON-RPC 2.0 request"; brackets inside strings are not nesting.
func TestALineNestedTooDeepIsRefusedAsSuch(t *testing.T) {
	call := func(args string) []byte {
		return []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"click","arguments":` + args + `}}`)
	}
	deep := `{"x":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`
	msg, _, why := decodeLine(call(deep), false)
	if msg != nil || why != "invalid request: lists and objects nest deeper than 1000 levels" {
		t.Errorf("5,000 deep: %v %q", msg, why)
	}
	quoted := `{"x":"` + strings.Repeat(`[\"`, 5000) + `"}`
	if msg, _, why := decodeLine(call(quoted), false); msg == nil {
		t.Errorf("brackets in a string: %q", why)
	}
	if msg, _, why := decodeLine([]byte(`{"jsonrpc":"1.0","id":1,"method":"ping"}`), false); msg != nil || !strings.Contains(why, "not a JSON-RPC 2.0") {
		t.Errorf("JSON-RPC 1.0: %q", why)
	}
}
