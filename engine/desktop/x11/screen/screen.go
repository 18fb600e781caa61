//go:build linux

// Package screen captures the pixels of one X display over a persistent X connection, with
// MIT-SHM when the server offers it (one shared segment, reused) and plain GetImage otherwise.
// The segment of an X server this process started (a virtual desktop's, in an IPC namespace
// of its own: docs/security.md#confinement) is a memfd handed over the connection; any other
// server's is a System V segment, which it must share the host's IPC namespace to attach.
package screen

import (
	"context"
	"encoding/binary"
	"errors"
	"image"
	"runtime"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/randr"
	"github.com/jezek/xgb/shm"
	"github.com/jezek/xgb/xproto"
	"golang.org/x/sys/unix"

	"github.com/w365/w365/engine/desktop/x11/xconn"
	"github.com/w365/w365/engine/werr"
)

// Screen is one X display's root window. It holds no global state, so a process
// may keep a Screen per display. It is safe for concurrent use.
type Screen struct {
	display string

	mu     sync.Mutex
	conn   *xgb.Conn
	root   xproto.Window
	depth  byte
	bpp    int // bits per pixel of the root's depth in ZPixmap format
	hasSHM bool
	// passer hands the server descriptors (nil: not a server this process started).
	passer *xconn.Passer
	randr  bool
	seg    *segment
	// release frees seg idleRelease after the last capture.
	release *time.Timer
	closed  bool
}

// idleRelease is how long the shared segment outlives the last capture: a burst of
// captures reuses it, and an idle host does not hold it (8 MB for 1920x1080, counted in
// its resident memory) until the next one.
const idleRelease = time.Second

// segment is a shared memory segment attached to the X server: data mapped here, free
// unmapping it.
type segment struct {
	seg  shm.Seg
	data []byte
	free func()
}

// Open connects to displayName (":0", ":7", ...).
func Open(displayName string) (*Screen, error) {
	s := &Screen{display: displayName}
	if err := s.connect(); err != nil {
		return nil, err
	}
	return s, nil
}

func (s *Screen) connect() error {
	conn, passer, err := xconn.ConnectPassing(s.display)
	if err != nil {
		return werr.Wrap(err, werr.Unavailable, "cannot connect to X display %s", s.display).
			WithHint("check that the display is running")
	}
	setup := xproto.Setup(conn)
	scr := setup.DefaultScreen(conn)
	s.conn, s.passer, s.root, s.depth = conn, passer, scr.Root, scr.RootDepth
	s.bpp = 0
	for _, f := range setup.PixmapFormats {
		if f.Depth == scr.RootDepth {
			s.bpp = int(f.BitsPerPixel)
		}
	}
	s.hasSHM = shm.Init(conn) == nil
	if s.hasSHM {
		// MIT-SHM needs the server on this machine, and a System V segment our IPC
		// namespace; the first attach tells (shmCapture). Descriptors go with version 1.2.
		v, err := shm.QueryVersion(conn).Reply()
		s.hasSHM = err == nil
		if err != nil || v.MajorVersion < 1 || (v.MajorVersion == 1 && v.MinorVersion < 2) {
			s.passer = nil
		}
	}
	s.randr = randr.Init(conn) == nil
	go xconn.Drain(conn)
	return nil
}

// Close releases the shared memory and the connection.
func (s *Screen) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	if s.release != nil {
		s.release.Stop()
	}
	s.dropConn()
	return nil
}

// dropSeg detaches the shared segment on both sides; the kernel frees it then (it is
// marked for removal at creation). s.mu is held.
func (s *Screen) dropSeg() {
	if s.seg == nil {
		return
	}
	if s.conn != nil {
		shm.Detach(s.conn, s.seg.seg)
		xproto.GetInputFocus(s.conn).Reply()
	}
	s.seg.free()
	s.seg = nil
}

func (s *Screen) dropConn() {
	s.dropSeg()
	if s.conn != nil {
		s.conn.Close()
		s.conn = nil
	}
}

// Display is the X display name.
func (s *Screen) Display() string { return s.display }

// do runs f with the lock held and reconnects once when the connection broke.
func (s *Screen) do(f func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return werr.New(werr.Unavailable, "screen %s is closed", s.display)
	}
	if err := xconn.Stalled(s.display); err != nil {
		return err
	}
	if s.conn == nil {
		if err := s.connect(); err != nil {
			return xconn.Explain(s.display, err)
		}
	}
	err := f()
	if err == nil || !connBroken(err) {
		return err
	}
	s.dropConn()
	if err := xconn.Stalled(s.display); err != nil {
		return err
	}
	if err := s.connect(); err != nil {
		return xconn.Explain(s.display, err)
	}
	return f()
}

// brokenConn marks an error as a lost connection (as opposed to an X protocol error).
type brokenConn struct{ error }

func (b brokenConn) Unwrap() error { return b.error }

func connBroken(err error) bool {
	var b brokenConn
	return errors.As(err, &b)
}

// xerr classifies an error of a Reply: X protocol errors (xgb.Error) are answers
// from a live server; anything else means the connection is gone.
func xerr(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := err.(xgb.Error); ok {
		return err
	}
	return brokenConn{err}
}

// Size returns the size of the whole virtual screen space (the root window).
func (s *Screen) Size() (w, h int, err error) {
	err = s.do(func() error {
		g, err := xproto.GetGeometry(s.conn, xproto.Drawable(s.root)).Reply()
		if err != nil {
			return xerr(err)
		}
		w, h = int(g.Width), int(g.Height)
		return nil
	})
	if err != nil && !isWerr(err) {
		err = werr.Wrap(err, werr.Unavailable, "cannot read the screen size of %s", s.display)
	}
	return w, h, err
}

func isWerr(err error) bool {
	var e *werr.Error
	return errors.As(err, &e)
}

// Monitors lists the monitors RandR reports, in screen coordinates; nil when RandR
// is missing or reports none.
func (s *Screen) Monitors() []image.Rectangle {
	var out []image.Rectangle
	s.do(func() error {
		if !s.randr {
			return nil
		}
		r, err := randr.GetMonitors(s.conn, s.root, true).Reply()
		if err != nil {
			return xerr(err)
		}
		for _, m := range r.Monitors {
			out = append(out, image.Rect(int(m.X), int(m.Y), int(m.X)+int(m.Width), int(m.Y)+int(m.Height)))
		}
		return nil
	})
	return out
}

// Capture returns the pixels of r (screen coordinates); an empty r means the whole
// screen. r must lie within the screen, else INVALID_ARGUMENT.
func (s *Screen) Capture(ctx context.Context, r image.Rectangle) (*image.RGBA, error) {
	if err := werr.Done(ctx, "capture"); err != nil {
		return nil, err
	}
	var img *image.RGBA
	err := s.do(func() error {
		stop := s.guard(ctx)
		var err error
		img, err = s.capture(r)
		if why := stop(); why != nil {
			img = nil
			return why
		}
		return err
	})
	if err != nil && !isWerr(err) {
		err = werr.Wrap(err, werr.Unavailable, "cannot capture the screen of %s", s.display)
	}
	return img, err
}

// guard closes the connection when ctx ends or xconn.AnswerLimit passes, so that an answer the
// server does not send cannot hold the call; the lock is held. stop ends the guard and
// returns why it fired (nil when it did not), the connection then dropped.
func (s *Screen) guard(ctx context.Context) (stop func() error) {
	conn, passer := s.conn, s.passer
	var mu sync.Mutex
	var why error
	fire := func(err error) {
		mu.Lock()
		defer mu.Unlock()
		if why != nil {
			return
		}
		why = err
		if passer != nil {
			passer.Abort()
		} else {
			go conn.Close() // waits for xgb's writer, which a full socket may hold
		}
	}
	timer := time.AfterFunc(xconn.AnswerLimit, func() {
		fire(werr.New(werr.Timeout, "the X server of %s did not answer within %s", s.display, xconn.AnswerLimit).
			WithHint("a program on the display may hold a server grab; try again, or close it"))
	})
	cancelled := context.AfterFunc(ctx, func() { fire(werr.Wrap(ctx.Err(), werr.Cancelled, "capture cancelled")) })
	return func() error {
		timer.Stop()
		cancelled()
		mu.Lock()
		err := why
		mu.Unlock()
		if err != nil {
			s.dropConn()
		}
		return err
	}
}

// capture reads r (the whole screen when empty); the lock is held.
func (s *Screen) capture(r image.Rectangle) (*image.RGBA, error) {
	g, err := xproto.GetGeometry(s.conn, xproto.Drawable(s.root)).Reply()
	if err != nil {
		return nil, xerr(err)
	}
	bounds := image.Rect(0, 0, int(g.Width), int(g.Height))
	if r.Empty() {
		r = bounds
	} else if !r.In(bounds) {
		return nil, werr.Invalid("region x=%d y=%d width=%d height=%d is not within the %dx%d screen",
			r.Min.X, r.Min.Y, r.Dx(), r.Dy(), bounds.Dx(), bounds.Dy()).
			WithHint("keep x, y >= 0, x+width <= %d and y+height <= %d", bounds.Dx(), bounds.Dy())
	}
	if s.bpp != 32 || (s.depth != 24 && s.depth != 32) || xproto.Setup(s.conn).ImageByteOrder != xproto.ImageOrderLSBFirst {
		return nil, werr.New(werr.Unsupported, "screen depth %d (%d bpp) is not supported; use 24-bit colour", s.depth, s.bpp)
	}
	if s.hasSHM {
		img, err := s.shmCapture(r)
		if err == nil || connBroken(err) {
			return img, err
		}
		s.hasSHM = false // fall back for good: the server cannot share memory with us
	}
	return s.plainCapture(r)
}

func (s *Screen) shmCapture(r image.Rectangle) (*image.RGBA, error) {
	need := r.Dx() * r.Dy() * 4
	if s.seg == nil || len(s.seg.data) < need {
		s.dropSeg()
		// Size for the whole screen at once, so that the segment is made once.
		g, err := xproto.GetGeometry(s.conn, xproto.Drawable(s.root)).Reply()
		if err != nil {
			return nil, xerr(err)
		}
		size := max(need, int(g.Width)*int(g.Height)*4)
		seg, err := shm.NewSegId(s.conn)
		if err != nil {
			return nil, brokenConn{err}
		}
		if s.passer != nil {
			s.seg, err = s.attachFD(seg, size)
		} else {
			s.seg, err = s.attachSysV(seg, size)
		}
		if err != nil {
			return nil, err
		}
	}
	_, err := shm.GetImage(s.conn, xproto.Drawable(s.root), int16(r.Min.X), int16(r.Min.Y),
		uint16(r.Dx()), uint16(r.Dy()), 0xffffffff, xproto.ImageFormatZPixmap, s.seg.seg, 0).Reply()
	if err != nil {
		return nil, xerr(err)
	}
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	bgraToRGBA(img.Pix, s.seg.data[:need])
	if s.release == nil {
		s.release = time.AfterFunc(idleRelease, func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			s.dropSeg()
		})
	} else {
		s.release.Reset(idleRelease)
	}
	return img, nil
}

// attachFD makes a memfd segment of size bytes and hands it to the server as seg. The
// memfd is sealed against shrinking: the server (confined, but talking to every program of
// its desktop) cannot truncate it under our mapping, which would fault the host on its
// next read.
func (s *Screen) attachFD(seg shm.Seg, size int) (*segment, error) {
	fd, err := unix.MemfdCreate("w365-capture", unix.MFD_CLOEXEC|unix.MFD_ALLOW_SEALING)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	if err := unix.Ftruncate(fd, int64(size)); err != nil {
		return nil, err
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_ADD_SEALS, unix.F_SEAL_SHRINK|unix.F_SEAL_SEAL); err != nil {
		return nil, err
	}
	data, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, err
	}
	if err := s.passer.Pass(fd); err != nil {
		unix.Munmap(data)
		return nil, err
	}
	if err := shm.AttachFdChecked(s.conn, seg, false).Check(); err != nil {
		unix.Munmap(data)
		return nil, xerr(err)
	}
	return &segment{seg: seg, data: data, free: func() { unix.Munmap(data) }}, nil
}

// attachSysV makes a System V segment of size bytes and has the server attach it as seg.
func (s *Screen) attachSysV(seg shm.Seg, size int) (*segment, error) {
	id, err := unix.SysvShmGet(unix.IPC_PRIVATE, size, unix.IPC_CREAT|0o600)
	if err != nil {
		return nil, err
	}
	data, err := unix.SysvShmAttach(id, 0, 0)
	// Mark for removal now: it disappears once both sides detach, even if we crash.
	unix.SysvShmCtl(id, unix.IPC_RMID, nil)
	if err != nil {
		return nil, err
	}
	if err := shm.AttachChecked(s.conn, seg, uint32(id), false).Check(); err != nil {
		unix.SysvShmDetach(data)
		return nil, xerr(err)
	}
	return &segment{seg: seg, data: data, free: func() { unix.SysvShmDetach(data) }}, nil
}

func (s *Screen) plainCapture(r image.Rectangle) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	// One GetImage reply must fit in a 32-bit length; split into bands of rows
	// anyway so that a huge screen never needs one giant reply.
	rowBytes := r.Dx() * 4
	band := max(1, (16<<20)/rowBytes)
	for y := 0; y < r.Dy(); y += band {
		h := min(band, r.Dy()-y)
		rep, err := xproto.GetImage(s.conn, xproto.ImageFormatZPixmap, xproto.Drawable(s.root),
			int16(r.Min.X), int16(r.Min.Y+y), uint16(r.Dx()), uint16(h), 0xffffffff).Reply()
		if err != nil {
			return nil, xerr(err)
		}
		if len(rep.Data) < rowBytes*h {
			return nil, errors.New("short GetImage reply")
		}
		bgraToRGBA(img.Pix[y*rowBytes:(y+h)*rowBytes], rep.Data[:rowBytes*h])
	}
	return img, nil
}

// bgraToRGBA converts X's 32-bit little-endian BGRX pixels into RGBA with opaque
// alpha, split across the CPUs for big images.
func bgraToRGBA(dst, src []byte) {
	n := len(src) / 4
	workers := runtime.GOMAXPROCS(0)
	if n < 1<<16 || workers < 2 {
		convert(dst, src)
		return
	}
	chunk := (n + workers - 1) / workers
	var wg sync.WaitGroup
	for i := 0; i < n; i += chunk {
		j := min(n, i+chunk)
		wg.Add(1)
		go func(i, j int) {
			defer wg.Done()
			convert(dst[4*i:4*j], src[4*i:4*j])
		}(i, j)
	}
	wg.Wait()
}

func convert(dst, src []byte) {
	dst = dst[:len(src)]
	i := 0
	// Two pixels at a time: swap bytes 0 and 2 of each, force alpha opaque.
	for ; i+8 <= len(src); i += 8 {
		v := binary.LittleEndian.Uint64(src[i:])
		v = v&0x0000ff000000ff00 | (v>>16)&0x000000ff000000ff | (v&0x000000ff000000ff)<<16 | 0xff000000ff000000
		binary.LittleEndian.PutUint64(dst[i:], v)
	}
	for ; i+3 < len(src); i += 4 {
		dst[i], dst[i+1], dst[i+2], dst[i+3] = src[i+2], src[i+1], src[i], 0xff
	}
}
