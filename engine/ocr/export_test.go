package ocr

// EndReaders ends the idle readers of every tesseract program and language, so that a
// test leaves no process behind.
func EndReaders() {
	pool.mu.Lock()
	idle := pool.idle
	pool.idle = map[string][]*reader{}
	for _, t := range pool.timer {
		t.Stop()
	}
	pool.mu.Unlock()
	for _, rs := range idle {
		for _, r := range rs {
			r.stop()
		}
	}
}
