//go:build linux

package atspi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/desktop"
	"github.com/w365/w365/engine/werr"
	"github.com/w365/w365/test/testenv"
)

// slowAnswer is how long the slow application of these tests takes for each answer: well
// within desktop.CallTimeout, but slowCalls of them take longer than it.
const (
	slowAnswer = 500 * time.Millisecond
	slowCalls  = 8
)

// slowPeer serves a peer connection as a loaded application does: it answers every call
// with its serial, each after slowAnswer, and stops answering after answers (-1: never).
func slowPeer(t *testing.T, answers int) *peer {
	app, host := net.Pipe()
	t.Cleanup(func() { app.Close(); host.Close() })
	go func() {
		r := bufio.NewReader(app)
		for n := 0; answers < 0 || n < answers; n++ {
			m, err := dbus.DecodeMessage(r)
			if err != nil {
				return
			}
			time.Sleep(slowAnswer)
			reply := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
				dbus.FieldReplySerial: dbus.MakeVariant(m.Serial()),
				dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(m.Serial())),
			}, Body: []any{m.Serial()}}
			var b bytes.Buffer
			if reply.EncodeTo(&b, binary.LittleEndian) != nil {
				return
			}
			if _, err := app.Write(b.Bytes()); err != nil {
				return
			}
		}
		// A hung application: it reads on and answers nothing.
		for {
			if _, err := dbus.DecodeMessage(r); err != nil {
				return
			}
		}
	}()
	return &peer{c: host, r: bufio.NewReader(host), w: bufio.NewWriter(host)}
}

// slowBatch is a batch of slowCalls calls to bus, each storing its answer in got[i].
func slowBatch(b *batch, bus, method string, got []uint32) {
	for i := range got {
		b.add(ref{bus, "/org/a11y/atspi/accessible/root"}, method, []any{&got[i]})
	}
}

// TestABatchWaitsForEachAnswerNotForAll: an application that answers every call of a batch,
// each within desktop.CallTimeout, has the batch answered although the whole takes longer
// (l3afpad and Evince at a load of about 25 gave a TIMEOUT for every walk); an application
// that stops answering still ends the batch in a TIMEOUT. Both ways of asking: a peer
// connection and the bus daemon.
func TestABatchWaitsForEachAnswerNotForAll(t *testing.T) {
	if slowAnswer*slowCalls <= desktop.CallTimeout {
		t.Fatalf("the batch would end within %s", desktop.CallTimeout)
	}
	t.Run("peer", func(t *testing.T) {
		t.Parallel()
		got := make([]uint32, slowCalls)
		b := &batch{peers: map[string]*peer{":1.7": slowPeer(t, -1)}}
		slowBatch(b, ":1.7", "org.a11y.atspi.Accessible.GetIndexInParent", got)
		if err := b.run(context.Background()); err != nil {
			t.Fatalf("a batch of %d answers %s apart: %v", slowCalls, slowAnswer, err)
		}
		for i, v := range got {
			if v == 0 {
				t.Errorf("call %d unanswered", i)
			}
		}
		hung := &batch{peers: map[string]*peer{":1.8": slowPeer(t, 2)}}
		slowBatch(hung, ":1.8", "org.a11y.atspi.Accessible.GetIndexInParent", make([]uint32, slowCalls))
		if err := hung.run(context.Background()); werr.As(err).Code != werr.Timeout {
			t.Fatalf("an application that stopped answering: %v, want a TIMEOUT", err)
		}
	})
	t.Run("bus", func(t *testing.T) {
		t.Parallel()
		testenv.Require(t, "dbus-daemon")
		d := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address")
		out, err := d.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := d.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { d.Process.Kill(); d.Wait() })
		addr, err := bufio.NewReader(out).ReadString('\n')
		if err != nil {
			t.Fatalf("dbus-daemon: %v", err)
		}
		dial := func() *dbus.Conn {
			c, err := dbus.Connect(strings.TrimSpace(addr))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { c.Close() })
			return c
		}
		app := dial()
		var mu sync.Mutex
		served, hungAfter := 0, -1
		if err := app.Export(slowObject{mu: &mu, served: &served, hungAfter: &hungAfter}, "/org/a11y/atspi/accessible/root", "org.a11y.atspi.Accessible"); err != nil {
			t.Fatal(err)
		}
		got := make([]uint32, slowCalls)
		b := &batch{conn: dial()}
		slowBatch(b, app.Names()[0], "org.a11y.atspi.Accessible.GetIndexInParent", got)
		if err := b.run(context.Background()); err != nil {
			t.Fatalf("a batch of %d answers %s apart: %v", slowCalls, slowAnswer, err)
		}
		for i, v := range got {
			if v == 0 {
				t.Errorf("call %d unanswered", i)
			}
		}
		mu.Lock()
		hungAfter = served + 2
		mu.Unlock()
		slowBatch(b, app.Names()[0], "org.a11y.atspi.Accessible.GetIndexInParent", make([]uint32, slowCalls))
		if err := b.run(context.Background()); werr.As(err).Code != werr.Timeout {
			t.Fatalf("an application that stopped answering: %v, want a TIMEOUT", err)
		}
	})
}

// slowObject answers GetIndexInParent with how many calls it served, each after slowAnswer,
// one at a time as an application's main thread does, and hangs from the call hungAfter on.
type slowObject struct {
	mu                *sync.Mutex
	served, hungAfter *int
}

func (o slowObject) GetIndexInParent() (uint32, *dbus.Error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	*o.served++
	if *o.hungAfter >= 0 && *o.served > *o.hungAfter {
		time.Sleep(time.Hour)
	}
	time.Sleep(slowAnswer)
	return uint32(*o.served), nil
}
