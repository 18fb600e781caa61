package child

import "sync"

// Tail keeps the last TailSize bytes written to it: what a helper prints on stderr grows
// with its life (a note per page, a warning per font), and only the end explains why it
// failed. Its zero value is ready to use.
type Tail struct {
	mu  sync.Mutex
	buf []byte
}

// TailSize is how many bytes a Tail keeps.
const TailSize = 4096

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.buf = append(t.buf, p...)
	if n := len(t.buf); n > TailSize {
		t.buf = append(t.buf[:0], t.buf[n-TailSize:]...)
	}
	return len(p), nil
}

func (t *Tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
