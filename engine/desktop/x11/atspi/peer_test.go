//go:build linux

package atspi

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math"
	"testing"

	"github.com/godbus/dbus/v5"
)

// TestCodecAgainstGodbus checks the lean encoder and decoder against godbus's own.
func TestCodecAgainstGodbus(t *testing.T) {
	c := &call{r: ref{"x", "/org/a11y/atspi/accessible/12"}, method: "org.freedesktop.DBus.Properties.Get",
		args: []any{"org.a11y.atspi.Accessible", "Name"}}
	b, err := appendCall(nil, 7, c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := dbus.DecodeMessage(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("godbus cannot decode our call: %v", err)
	}
	if m.Serial() != 7 || m.Headers[dbus.FieldMember].Value() != "Get" ||
		m.Headers[dbus.FieldInterface].Value() != "org.freedesktop.DBus.Properties" ||
		m.Headers[dbus.FieldPath].Value() != dbus.ObjectPath("/org/a11y/atspi/accessible/12") ||
		len(m.Body) != 2 || m.Body[1] != "Name" {
		t.Fatalf("decoded %v", m)
	}
	c2 := &call{r: ref{"x", "/a"}, method: "org.a11y.atspi.Component.GetExtents", args: []any{uint32(0)}}
	if b, err = appendCall(nil, 8, c2); err != nil {
		t.Fatal(err)
	}
	if m, err = dbus.DecodeMessage(bytes.NewReader(b)); err != nil || m.Body[0] != uint32(0) {
		t.Fatalf("%v %v", m, err)
	}

	// Replies encoded by godbus, decoded by us.
	reply := func(serial uint32, body ...any) []byte {
		msg := &dbus.Message{Type: dbus.TypeMethodReply, Headers: map[dbus.HeaderField]dbus.Variant{
			dbus.FieldReplySerial: dbus.MakeVariant(serial),
			dbus.FieldSignature:   dbus.MakeVariant(dbus.SignatureOf(body...)),
		}, Body: body}
		var buf bytes.Buffer
		if err := msg.EncodeTo(&buf, binary.LittleEndian); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	var stream bytes.Buffer
	stream.Write(reply(1, []objRef{{"a", "/p/1"}, {"b", "/p/2"}}))
	stream.Write(reply(2, extents{-5, 10, 300, math.MinInt32}))
	stream.Write(reply(3, dbus.MakeVariant(42.5)))
	stream.Write(reply(4, []uint32{1 << 25, 3}))
	stream.Write(reply(5, []string{"org.a11y.atspi.Accessible", "org.a11y.atspi.Component"}))
	r := bufio.NewReader(&stream)
	var kids []objRef
	var box extents
	var v dbus.Variant
	var st []uint32
	var ifs []string
	for i, out := range []any{&kids, &box, &v, &st, &ifs} {
		typ, to, _, sig, body, err := readMessage(r)
		if err != nil || typ != 2 || to != uint32(i+1) {
			t.Fatalf("reply %d: type %d to %d err %v", i+1, typ, to, err)
		}
		if err := storeReply(sig, body, []any{out}); err != nil {
			t.Fatalf("reply %d (%s): %v", i+1, sig, err)
		}
	}
	if len(kids) != 2 || kids[1].Bus != "b" || kids[1].Path != "/p/2" {
		t.Errorf("children %+v", kids)
	}
	if box != (extents{-5, 10, 300, math.MinInt32}) {
		t.Errorf("extents %+v", box)
	}
	if v.Value() != 42.5 {
		t.Errorf("variant %v", v)
	}
	if len(st) != 2 || st[0] != 1<<25 || len(ifs) != 2 || ifs[1] != "org.a11y.atspi.Component" {
		t.Errorf("states %v interfaces %v", st, ifs)
	}
}
