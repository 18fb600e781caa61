//go:build linux

package atspi

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/w365/w365/engine/desktop"
)

// peer is a direct (peer-to-peer) D-Bus connection to one application's private server
// (atk-bridge offers one through org.a11y.atspi.Application.GetApplicationBusAddress).
//
// It speaks just the part of the protocol a walk needs, because a walk is thousands of
// small calls: godbus spends more CPU per message (a goroutine per call, three 4 KB
// decoder buffers per reply) than the application takes to answer, and on two cores
// that decides the walk time. A batch owns the connection while it runs: it writes all
// its calls in one buffered write and reads the replies in the same goroutine.
type peer struct {
	mu     sync.Mutex
	c      net.Conn
	r      *bufio.Reader
	w      *bufio.Writer
	serial uint32
	broken bool // a batch gave up mid-stream: the connection must not be reused
}

// dialPeer connects to an application's server at addr (dialLocal: a socket beside the
// session bus at sessionAddr) and authenticates with EXTERNAL.
func dialPeer(addr, sessionAddr string, timeout time.Duration, dirs ...string) (*peer, error) {
	nc, err := dialLocal(addr, sessionAddr, timeout, dirs...)
	if err != nil {
		return nil, err
	}
	nc.SetDeadline(time.Now().Add(timeout))
	p := &peer{c: nc, r: bufio.NewReaderSize(nc, 64<<10), w: bufio.NewWriterSize(nc, 64<<10)}
	// EXTERNAL without an identity: the server takes the credentials it sees on the
	// socket. A confined application's user namespace maps the host's uid to its own (on
	// a root host the unmapped root shows as the overflow uid, nobody's, the application's
	// own), so the host's own uid, claimed outright, would be refused (docs/security.md).
	p.w.WriteString("\x00AUTH EXTERNAL\r\n")
	line, err := p.exchange()
	if err == nil && strings.HasPrefix(line, "DATA") {
		p.w.WriteString("DATA\r\n")
		line, err = p.exchange()
	}
	if err != nil || !strings.HasPrefix(line, "OK ") {
		nc.Close()
		return nil, fmt.Errorf("peer authentication failed: %q %v", strings.TrimSpace(line), err)
	}
	p.w.WriteString("BEGIN\r\n")
	if err := p.w.Flush(); err != nil {
		nc.Close()
		return nil, err
	}
	nc.SetDeadline(time.Time{})
	return p, nil
}

// exchange sends what is buffered and reads the server's answer line.
func (p *peer) exchange() (string, error) {
	if err := p.w.Flush(); err != nil {
		return "", err
	}
	return p.r.ReadString('\n')
}

func (p *peer) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.broken = true
	p.c.Close()
}

func (p *peer) usable() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.broken
}

// errPeerBroken marks a peer that failed mid-batch.
var errPeerBroken = errors.New("peer connection broken")

// run sends calls (at most maxInFlight outstanding), reads their replies until deadline,
// each within desktop.CallTimeout of the one before, and stores them like godbus's Store;
// ctx ended breaks off the reading. A method error stays in call.err; a transport
// failure or the deadline breaks the connection and is returned.
func (p *peer) run(ctx context.Context, calls []*call, deadline time.Time) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken {
		return errPeerBroken
	}
	fail := func(err error) error {
		p.broken = true
		p.c.Close()
		return err
	}
	// The deadline is moved on under dl, and past when ctx ends (ctx.Err is set before the
	// stop runs): a reply read as ctx ends cannot move it back.
	var dl sync.Mutex
	patience := func() error {
		dl.Lock()
		defer dl.Unlock()
		if err := ctx.Err(); err != nil {
			return err
		}
		next := time.Now().Add(desktop.CallTimeout)
		if next.After(deadline) {
			next = deadline
		}
		return p.c.SetDeadline(next)
	}
	stop := context.AfterFunc(ctx, func() {
		dl.Lock()
		defer dl.Unlock()
		p.c.SetDeadline(time.Unix(1, 0))
	})
	defer stop()
	if err := patience(); err != nil {
		return fail(err)
	}
	pending := make(map[uint32]*call, min(len(calls), maxInFlight))
	next := 0
	var buf []byte
	for next < len(calls) || len(pending) > 0 {
		for next < len(calls) && len(pending) < maxInFlight {
			c := calls[next]
			next++
			p.serial++
			var err error
			buf, err = appendCall(buf[:0], p.serial, c)
			if err != nil {
				c.err = err
				continue
			}
			p.w.Write(buf)
			pending[p.serial] = c
		}
		if err := p.w.Flush(); err != nil {
			return fail(err)
		}
		if len(pending) == 0 {
			break
		}
		typ, replyTo, errName, sig, body, err := readMessage(p.r)
		if err == nil {
			err = patience()
		}
		if err != nil {
			return fail(err)
		}
		c := pending[replyTo]
		if c == nil || (typ != 2 && typ != 3) {
			continue // a signal, or the reply to a call we gave up on
		}
		delete(pending, replyTo)
		if typ == 3 {
			c.err = dbus.Error{Name: errName}
			continue
		}
		c.err = storeReply(sig, body, c.out)
	}
	return nil
}

func align(b []byte, n int) []byte {
	for len(b)%n != 0 {
		b = append(b, 0)
	}
	return b
}

func appendString(b []byte, s string) []byte {
	b = align(b, 4)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
	b = append(b, s...)
	return append(b, 0)
}

func appendField(b []byte, code byte, sig byte, s string) []byte {
	b = align(b, 8)
	b = append(b, code, 1, sig, 0)
	if sig == 'g' {
		b = append(b, byte(len(s)))
		b = append(b, s...)
		return append(b, 0)
	}
	return appendString(b, s)
}

// appendCall encodes a method call (little endian). Arguments: uint32, int32 and string.
func appendCall(b []byte, serial uint32, c *call) ([]byte, error) {
	i := strings.LastIndexByte(c.method, '.')
	if i < 0 {
		return nil, fmt.Errorf("method %q has no interface", c.method)
	}
	var body []byte
	sig := ""
	for _, a := range c.args {
		switch v := a.(type) {
		case uint32:
			body = binary.LittleEndian.AppendUint32(align(body, 4), v)
			sig += "u"
		case int32:
			body = binary.LittleEndian.AppendUint32(align(body, 4), uint32(v))
			sig += "i"
		case string:
			body = appendString(body, v)
			sig += "s"
		default:
			return nil, fmt.Errorf("unsupported argument %T", a)
		}
	}
	start := len(b)
	b = append(b, 'l', 1, 0, 1)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(body)))
	b = binary.LittleEndian.AppendUint32(b, serial)
	b = binary.LittleEndian.AppendUint32(b, 0) // header fields length, patched below
	fields := len(b)
	// Header alignment is relative to the message start; start is 8-aligned in buf.
	rel := b[start:]
	rel = appendField(rel, 1, 'o', string(c.r.path))
	rel = appendField(rel, 2, 's', c.method[:i])
	rel = appendField(rel, 3, 's', c.method[i+1:])
	if sig != "" {
		rel = appendField(rel, 8, 'g', sig)
	}
	binary.LittleEndian.PutUint32(rel[12:], uint32(len(rel)-(fields-start)))
	rel = align(rel, 8)
	rel = append(rel, body...)
	return append(b[:start], rel...), nil
}

// readMessage reads one message and returns its type, reply serial, error name,
// body signature and body (aligned as in the message: offset 0 is 8-aligned).
func readMessage(r *bufio.Reader) (typ byte, replyTo uint32, errName, sig string, body []byte, err error) {
	var fixed [16]byte
	if _, err = io.ReadFull(r, fixed[:]); err != nil {
		return
	}
	var order binary.ByteOrder = binary.LittleEndian
	if fixed[0] == 'B' {
		order = binary.BigEndian
	} else if fixed[0] != 'l' {
		err = fmt.Errorf("bad endianness byte %q", fixed[0])
		return
	}
	typ = fixed[1]
	bodyLen := order.Uint32(fixed[4:])
	fieldsLen := order.Uint32(fixed[12:])
	if bodyLen > maxMessage || fieldsLen > 1<<20 {
		err = errors.New("message too large")
		return
	}
	hdr := make([]byte, 16+int(fieldsLen))
	copy(hdr, fixed[:])
	if _, err = io.ReadFull(r, hdr[16:]); err != nil {
		return
	}
	if pad := (8 - len(hdr)%8) % 8; pad > 0 {
		if _, err = r.Discard(pad); err != nil {
			return
		}
	}
	body = make([]byte, bodyLen)
	if _, err = io.ReadFull(r, body); err != nil {
		return
	}
	if order == binary.BigEndian {
		err = errors.New("big-endian peers are not supported")
		return
	}
	d := &dec{b: hdr, off: 16}
	for d.off < len(hdr) && d.err == nil {
		d.align(8)
		if d.off >= len(hdr) {
			break
		}
		code := d.byte()
		vsig := d.sig()
		v := d.value(vsig)
		switch code {
		case 4:
			errName, _ = v.(string)
		case 5:
			replyTo, _ = v.(uint32)
		case 8:
			sig, _ = v.(string)
		}
	}
	err = d.err
	return
}

// dec decodes little-endian D-Bus values; alignment is relative to b[0].
type dec struct {
	b   []byte
	off int
	err error
}

func (d *dec) need(n int) bool {
	if d.err == nil && d.off+n > len(d.b) {
		d.err = io.ErrUnexpectedEOF
	}
	return d.err == nil
}

func (d *dec) align(n int) {
	d.off = (d.off + n - 1) / n * n
}

func (d *dec) byte() byte {
	if !d.need(1) {
		return 0
	}
	d.off++
	return d.b[d.off-1]
}

func (d *dec) u32() uint32 {
	d.align(4)
	if !d.need(4) {
		return 0
	}
	d.off += 4
	return binary.LittleEndian.Uint32(d.b[d.off-4:])
}

func (d *dec) str() string {
	n := int(d.u32())
	if !d.need(n + 1) {
		return ""
	}
	s := cut(string(d.b[d.off : d.off+n]))
	d.off += n + 1
	return s
}

func (d *dec) sig() string {
	n := int(d.byte())
	if !d.need(n + 1) {
		return ""
	}
	s := cut(string(d.b[d.off : d.off+n]))
	d.off += n + 1
	return s
}

// sigEnd returns the length of the single complete type at the start of s.
func sigEnd(s string) int {
	if s == "" {
		return 0
	}
	switch s[0] {
	case 'a':
		return 1 + sigEnd(s[1:])
	case '(', '{':
		depth := 0
		for i := 0; i < len(s); i++ {
			switch s[i] {
			case '(', '{':
				depth++
			case ')', '}':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(s)
	}
	return 1
}

// value decodes one complete type. Integers keep their D-Bus width; arrays are []any,
// structs []any, variants their content.
func (d *dec) value(sig string) any {
	if d.err != nil || sig == "" {
		return nil
	}
	switch sig[0] {
	case 'y':
		return d.byte()
	case 'b':
		return d.u32() != 0
	case 'n', 'q':
		d.align(2)
		if !d.need(2) {
			return nil
		}
		d.off += 2
		v := binary.LittleEndian.Uint16(d.b[d.off-2:])
		if sig[0] == 'n' {
			return int16(v)
		}
		return v
	case 'i':
		return int32(d.u32())
	case 'u', 'h':
		return d.u32()
	case 'x', 't', 'd':
		d.align(8)
		if !d.need(8) {
			return nil
		}
		d.off += 8
		v := binary.LittleEndian.Uint64(d.b[d.off-8:])
		switch sig[0] {
		case 'x':
			return int64(v)
		case 'd':
			return math.Float64frombits(v)
		}
		return v
	case 's', 'o':
		return d.str()
	case 'g':
		return d.sig()
	case 'v':
		return d.value(d.sig())
	case 'a':
		n := int(d.u32())
		elem := sig[1 : 1+sigEnd(sig[1:])]
		if elem != "" && (elem[0] == '(' || elem[0] == '{' || elem[0] == 'x' || elem[0] == 't' || elem[0] == 'd') {
			d.align(8)
		}
		end := d.off + n
		if !d.need(n) {
			return nil
		}
		var out []any
		for d.off < end && d.err == nil {
			out = append(out, d.value(elem))
		}
		return out
	case '(', '{':
		d.align(8)
		inner := sig[1 : sigEnd(sig)-1]
		var out []any
		for inner != "" && d.err == nil {
			n := sigEnd(inner)
			out = append(out, d.value(inner[:n]))
			inner = inner[n:]
		}
		return out
	}
	d.err = fmt.Errorf("unsupported type %q", sig)
	return nil
}

// storeReply decodes a reply body into the out pointers a walk uses.
func storeReply(sig string, body []byte, out []any) error {
	d := &dec{b: body}
	for _, o := range out {
		n := sigEnd(sig)
		if n == 0 {
			return errors.New("reply has fewer values than expected")
		}
		v := d.value(sig[:n])
		sig = sig[n:]
		if d.err != nil {
			return d.err
		}
		if err := store(v, o); err != nil {
			return err
		}
	}
	return nil
}

func store(v any, o any) error {
	bad := fmt.Errorf("cannot store %T in %T", v, o)
	switch p := o.(type) {
	case *uint32:
		x, ok := v.(uint32)
		if !ok {
			return bad
		}
		*p = x
	case *int32:
		x, ok := v.(int32)
		if !ok {
			return bad
		}
		*p = x
	case *string:
		x, ok := v.(string)
		if !ok {
			return bad
		}
		*p = x
	case *[]uint32:
		xs, _ := v.([]any)
		*p = (*p)[:0]
		for _, x := range xs {
			u, ok := x.(uint32)
			if !ok {
				return bad
			}
			*p = append(*p, u)
		}
	case *[]string:
		xs, _ := v.([]any)
		*p = (*p)[:0]
		for _, x := range xs {
			s, ok := x.(string)
			if !ok {
				return bad
			}
			*p = append(*p, s)
		}
	case *[]objRef:
		xs, _ := v.([]any)
		*p = (*p)[:0]
		for _, x := range xs {
			st, _ := x.([]any)
			if len(st) != 2 {
				return bad
			}
			bus, _ := st[0].(string)
			path, _ := st[1].(string)
			*p = append(*p, objRef{Bus: bus, Path: dbus.ObjectPath(path)})
		}
	case *extents:
		st, _ := v.([]any)
		if len(st) != 4 {
			return bad
		}
		var e [4]int32
		for i := range e {
			x, ok := st[i].(int32)
			if !ok {
				return bad
			}
			e[i] = x
		}
		*p = extents{e[0], e[1], e[2], e[3]}
	case *[]cacheItem:
		xs, _ := v.([]any)
		*p = make([]cacheItem, len(xs))
		for i, x := range xs {
			if !storeCacheItem(x, &(*p)[i]) {
				return bad
			}
		}
	case *dbus.Variant:
		if v == nil {
			return bad
		}
		*p = dbus.MakeVariant(v)
	default:
		return bad
	}
	return nil
}

// objRef is an AT-SPI object reference, (so).
type objRef struct {
	Bus  string
	Path dbus.ObjectPath
}

// extents is the reply of Component.GetExtents, (iiii).
type extents struct{ X, Y, W, H int32 }

// storeCacheItem stores a decoded ((so)(so)(so)iiassusau) in it.
func storeCacheItem(v any, it *cacheItem) bool {
	st, _ := v.([]any)
	if len(st) != 10 {
		return false
	}
	refs := []*objRef{&it.Ref, &it.App, &it.Parent}
	for i, r := range refs {
		f, _ := st[i].([]any)
		if len(f) != 2 {
			return false
		}
		bus, ok1 := f[0].(string)
		path, ok2 := f[1].(string)
		if !ok1 || !ok2 {
			return false
		}
		*r = objRef{Bus: bus, Path: dbus.ObjectPath(path)}
	}
	idx, ok1 := st[3].(int32)
	cnt, ok2 := st[4].(int32)
	name, ok3 := st[6].(string)
	role, ok4 := st[7].(uint32)
	desc, ok5 := st[8].(string)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return false
	}
	it.Index, it.Count, it.Name, it.Role, it.Description = idx, cnt, name, role, desc
	return store(st[5], &it.Interfaces) == nil && store(st[9], &it.States) == nil
}
