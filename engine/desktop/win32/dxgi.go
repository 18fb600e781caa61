//go:build windows

package win32

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// DXGI desktop duplication (Windows 8 and later): each monitor's desktop image as a
// Direct3D 11 texture, copied to a CPU-readable staging texture. It sees what GDI may
// not (full-screen Direct3D and video surfaces) and costs one GPU copy per monitor.

var (
	dxgiDLL                = windows.NewLazySystemDLL("dxgi.dll")
	d3d11DLL               = windows.NewLazySystemDLL("d3d11.dll")
	procCreateDXGIFactory1 = dxgiDLL.NewProc("CreateDXGIFactory1")
	procD3D11CreateDevice  = d3d11DLL.NewProc("D3D11CreateDevice")

	iidIDXGIFactory1   = windows.GUID{Data1: 0x770aae78, Data2: 0xf26f, Data3: 0x4dba, Data4: [8]byte{0xa8, 0x29, 0x25, 0x3c, 0x83, 0xd1, 0xb3, 0x87}}
	iidIDXGIOutput1    = windows.GUID{Data1: 0x00cddea8, Data2: 0x939b, Data3: 0x4b83, Data4: [8]byte{0xa3, 0x40, 0xa6, 0x85, 0x22, 0x66, 0x66, 0xcc}}
	iidID3D11Texture2D = windows.GUID{Data1: 0x6f15aaf2, Data2: 0xd208, Data3: 0x4e89, Data4: [8]byte{0x9a, 0xb4, 0x48, 0x95, 0x35, 0xd3, 0x4f, 0x9c}}
)

// Method-table indices (mingw-w64's dxgi.h, dxgi1_2.h and d3d11.h, C interface order).
const (
	factory1EnumAdapters1   = 12
	adapterEnumOutputs      = 7
	outputGetDesc           = 7
	output1DuplicateOutput  = 22
	duplGetDesc             = 7
	duplAcquireNextFrame    = 8
	duplReleaseFrame        = 14
	deviceCreateTexture2D   = 5
	contextMap              = 14
	contextUnmap            = 15
	contextCopyResource     = 47
	texture2DGetDesc        = 10
	d3d11SDKVersion         = 7
	dxgiFormatB8G8R8A8      = 87
	dxgiRotationIdentity    = 1
	d3d11UsageStaging       = 3
	d3d11CPUAccessRead      = 0x20000
	d3d11MapRead            = 1
	firstFrameTimeoutMillis = 500
)

type dxgiOutputDesc struct {
	DeviceName         [32]uint16
	DesktopCoordinates windows.Rect
	AttachedToDesktop  int32
	Rotation           uint32
	Monitor            uintptr
}

type dxgiOutduplDesc struct {
	Width, Height                        uint32
	RefreshNumerator, RefreshDenominator uint32
	Format, ScanlineOrdering, Scaling    uint32
	Rotation                             uint32
	DesktopImageInSystemMemory           int32
}

type dxgiOutduplFrameInfo struct {
	LastPresentTime, LastMouseUpdateTime       int64
	AccumulatedFrames                          uint32
	RectsCoalesced, ProtectedContentMaskedOut  int32
	PointerX, PointerY, PointerVisible         int32
	TotalMetadataBufferSize, PointerShapeBytes uint32
}

type texture2DDesc struct {
	Width, Height, MipLevels, ArraySize, Format uint32
	SampleCount, SampleQuality                  uint32
	Usage, BindFlags, CPUAccessFlags, MiscFlags uint32
}

type mappedSubresource struct {
	Data                 uintptr
	RowPitch, DepthPitch uint32
}

// errAccessLost: the duplication must be made again (a mode change, a monitor added or
// removed, a switch to the secure desktop).
var errAccessLost = errors.New("DXGI_ERROR_ACCESS_LOST")

// duplication is desktop duplication of every monitor attached to the desktop.
type duplication struct {
	outputs []*dupOutput
	virtual image.Rectangle // the virtual screen it was made for
}

// dupOutput is one monitor: its device, duplication and staging texture, and the last
// frame it delivered (AcquireNextFrame only answers when something has changed).
type dupOutput struct {
	rect                       image.Rectangle // desktop coordinates
	device, context, dupl, stg com
	frame                      *image.RGBA
}

// openDuplication duplicates every output of every adapter that is part of the
// desktop. virtual is the virtual screen (GetSystemMetrics) it must cover.
func openDuplication(virtual image.Rectangle) (d *duplication, err error) {
	d = &duplication{virtual: virtual}
	defer func() {
		if err != nil {
			d.close()
			d = nil
		}
	}()
	for _, p := range []*windows.LazyProc{procCreateDXGIFactory1, procD3D11CreateDevice} {
		if err := p.Find(); err != nil { // Windows without DXGI 1.1 or Direct3D 11
			return d, err
		}
	}
	var factory com
	r, _, _ := procCreateDXGIFactory1.Call(uintptr(unsafe.Pointer(&iidIDXGIFactory1)), uintptr(unsafe.Pointer(&factory)))
	if err := hresult("CreateDXGIFactory1", r); err != nil {
		return d, err
	}
	defer factory.release()
	for a := 0; ; a++ {
		var adapter com
		r, _, _ := syscall.SyscallN(factory.method(factory1EnumAdapters1), uintptr(factory), uintptr(a), uintptr(unsafe.Pointer(&adapter)))
		if uint32(r) == dxgiErrorNotFound {
			break
		}
		if err := hresult("IDXGIFactory1::EnumAdapters1", r); err != nil {
			return d, err
		}
		err := d.addAdapter(adapter)
		adapter.release()
		if err != nil {
			return d, err
		}
	}
	if len(d.outputs) == 0 {
		return d, errors.New("DXGI lists no output attached to the desktop")
	}
	if u := d.union(); u != virtual {
		// A process that is not DPI-aware sees scaled metrics, DXGI the real pixels.
		return d, fmt.Errorf("DXGI's outputs span %v, GetSystemMetrics' virtual screen is %v", u, virtual)
	}
	return d, nil
}

// addAdapter duplicates the adapter's outputs that are part of the desktop.
func (d *duplication) addAdapter(adapter com) error {
	for i := 0; ; i++ {
		var output com
		r, _, _ := syscall.SyscallN(adapter.method(adapterEnumOutputs), uintptr(adapter), uintptr(i), uintptr(unsafe.Pointer(&output)))
		if uint32(r) == dxgiErrorNotFound {
			return nil
		}
		if err := hresult("IDXGIAdapter1::EnumOutputs", r); err != nil {
			return err
		}
		o, err := duplicateOutput(adapter, output)
		output.release()
		if err != nil {
			return err
		}
		if o != nil {
			d.outputs = append(d.outputs, o)
		}
	}
}

// union is the bounding box of the outputs, which the virtual screen is (pixels of it
// on no monitor stay black, as with GDI).
func (d *duplication) union() image.Rectangle {
	var u image.Rectangle
	for _, o := range d.outputs {
		u = u.Union(o.rect)
	}
	return u
}

// duplicateOutput makes a Direct3D 11 device on the output's adapter and duplicates the
// output; nil (and no error) for an output that is not part of the desktop.
func duplicateOutput(adapter, output com) (*dupOutput, error) {
	var desc dxgiOutputDesc
	r, _, _ := syscall.SyscallN(output.method(outputGetDesc), uintptr(output), uintptr(unsafe.Pointer(&desc)))
	if err := hresult("IDXGIOutput::GetDesc", r); err != nil {
		return nil, err
	}
	if desc.AttachedToDesktop == 0 {
		return nil, nil
	}
	if desc.Rotation > dxgiRotationIdentity {
		return nil, fmt.Errorf("output %s is rotated (DXGI_MODE_ROTATION %d)", windows.UTF16ToString(desc.DeviceName[:]), desc.Rotation)
	}
	c := desc.DesktopCoordinates
	o := &dupOutput{rect: image.Rect(int(c.Left), int(c.Top), int(c.Right), int(c.Bottom))}
	r, _, _ = procD3D11CreateDevice.Call(uintptr(adapter), 0 /* D3D_DRIVER_TYPE_UNKNOWN: the adapter's */, 0, 0, 0, 0,
		d3d11SDKVersion, uintptr(unsafe.Pointer(&o.device)), 0, uintptr(unsafe.Pointer(&o.context)))
	if err := hresult("D3D11CreateDevice", r); err != nil {
		return nil, err
	}
	output1, err := output.queryInterface(&iidIDXGIOutput1, "IDXGIOutput::QueryInterface(IDXGIOutput1)")
	if err != nil {
		o.close()
		return nil, err
	}
	r, _, _ = syscall.SyscallN(output1.method(output1DuplicateOutput), uintptr(output1), uintptr(o.device), uintptr(unsafe.Pointer(&o.dupl)))
	output1.release()
	if err := hresult("IDXGIOutput1::DuplicateOutput", r); err != nil {
		o.close()
		return nil, err
	}
	var dd dxgiOutduplDesc
	syscall.SyscallN(o.dupl.method(duplGetDesc), uintptr(o.dupl), uintptr(unsafe.Pointer(&dd)))
	if dd.Format != dxgiFormatB8G8R8A8 || int(dd.Width) != o.rect.Dx() || int(dd.Height) != o.rect.Dy() {
		o.close()
		return nil, fmt.Errorf("output %s duplicates as %dx%d in DXGI format %d, not its desktop %v in B8G8R8A8",
			windows.UTF16ToString(desc.DeviceName[:]), dd.Width, dd.Height, dd.Format, o.rect)
	}
	return o, nil
}

// capture draws r (virtual-screen coordinates from its top-left corner) of every
// output into a new image.
func (d *duplication) capture(r image.Rectangle) (*image.RGBA, error) {
	img := image.NewRGBA(image.Rect(0, 0, r.Dx(), r.Dy()))
	for _, o := range d.outputs {
		at := o.rect.Sub(d.virtual.Min) // the output in virtual-screen coordinates
		part := at.Intersect(r)
		if part.Empty() {
			continue
		}
		if err := o.refresh(); err != nil {
			return nil, err
		}
		draw.Draw(img, part.Sub(r.Min), o.frame, part.Min.Sub(at.Min), draw.Src)
	}
	return img, nil
}

// refresh takes the output's next frame when there is one; o.frame is then its
// current image.
func (o *dupOutput) refresh() error {
	timeout := uintptr(0) // nothing new: the last frame is current
	if o.frame == nil {
		timeout = firstFrameTimeoutMillis
	}
	var info dxgiOutduplFrameInfo
	var res com
	r, _, _ := syscall.SyscallN(o.dupl.method(duplAcquireNextFrame), uintptr(o.dupl), timeout, uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&res)))
	switch uint32(r) {
	case dxgiErrorWaitTimeout:
		if o.frame != nil {
			return nil
		}
	case dxgiErrorAccessLost:
		return errAccessLost
	}
	if err := hresult("IDXGIOutputDuplication::AcquireNextFrame", r); err != nil {
		return err
	}
	defer syscall.SyscallN(o.dupl.method(duplReleaseFrame), uintptr(o.dupl))
	defer res.release()
	if info.LastPresentTime == 0 && o.frame != nil {
		return nil // only the pointer moved
	}
	tex, err := res.queryInterface(&iidID3D11Texture2D, "IDXGIResource::QueryInterface(ID3D11Texture2D)")
	if err != nil {
		return err
	}
	defer tex.release()
	if o.stg == 0 {
		var desc texture2DDesc
		syscall.SyscallN(tex.method(texture2DGetDesc), uintptr(tex), uintptr(unsafe.Pointer(&desc)))
		if int(desc.Width) != o.rect.Dx() || int(desc.Height) != o.rect.Dy() {
			return fmt.Errorf("the desktop texture is %dx%d, the output %v", desc.Width, desc.Height, o.rect)
		}
		desc.MipLevels, desc.ArraySize, desc.SampleCount, desc.SampleQuality = 1, 1, 1, 0
		desc.Usage, desc.BindFlags, desc.CPUAccessFlags, desc.MiscFlags = d3d11UsageStaging, 0, d3d11CPUAccessRead, 0
		r, _, _ := syscall.SyscallN(o.device.method(deviceCreateTexture2D), uintptr(o.device), uintptr(unsafe.Pointer(&desc)), 0, uintptr(unsafe.Pointer(&o.stg)))
		if err := hresult("ID3D11Device::CreateTexture2D(staging)", r); err != nil {
			return err
		}
	}
	syscall.SyscallN(o.context.method(contextCopyResource), uintptr(o.context), uintptr(o.stg), uintptr(tex))
	var m mappedSubresource
	r, _, _ = syscall.SyscallN(o.context.method(contextMap), uintptr(o.context), uintptr(o.stg), 0, d3d11MapRead, 0, uintptr(unsafe.Pointer(&m)))
	if err := hresult("ID3D11DeviceContext::Map", r); err != nil {
		return err
	}
	defer syscall.SyscallN(o.context.method(contextUnmap), uintptr(o.context), uintptr(o.stg), 0)
	w, h := o.rect.Dx(), o.rect.Dy()
	if o.frame == nil {
		o.frame = image.NewRGBA(image.Rect(0, 0, w, h))
	}
	for y := range h {
		src := unsafe.Slice((*byte)(sysPtr(m.Data+uintptr(y)*uintptr(m.RowPitch))), 4*w)
		bgraToRGBA(o.frame.Pix[y*o.frame.Stride:y*o.frame.Stride+4*w], src)
	}
	return nil
}

func (o *dupOutput) close() {
	for _, c := range []com{o.stg, o.dupl, o.context, o.device} {
		c.release()
	}
	*o = dupOutput{}
}

func (d *duplication) close() {
	for _, o := range d.outputs {
		o.close()
	}
	d.outputs = nil
}
