package host

import (
	"testing"

	"github.com/w365/w365/engine/session"
)

// The same bytes kept twice for one session are one resource; for another session, or
// other bytes, they are another.
func TestResultStoreKeepsTheSameBytesOnce(t *testing.T) {
	var st resultStore
	a, b := &session.Session{ID: "a"}, &session.Session{ID: "b"}
	first := st.add(a, []byte("invoice"), "text/plain", "txt")
	other := st.add(a, []byte("receipt"), "text/plain", "txt")
	again := st.add(a, []byte("invoice"), "text/plain", "txt")
	elsewhere := st.add(b, []byte("invoice"), "text/plain", "txt")
	if again.URI != first.URI || other.URI == first.URI || elsewhere.URI == first.URI {
		t.Fatalf("first %s, other %s, again %s, in b %s", first.URI, other.URI, again.URI, elsewhere.URI)
	}
	if st.bytes != 3*len("invoice") || len(st.order) != 3 || st.order[1] != first.URI {
		t.Fatalf("kept %d bytes, order %v", st.bytes, st.order)
	}
	live := func(*session.Session) bool { return true }
	if r, ok := st.get(first.URI, live); !ok || string(r.data) != "invoice" {
		t.Fatalf("get %s: %v %v", first.URI, r, ok)
	}
}
