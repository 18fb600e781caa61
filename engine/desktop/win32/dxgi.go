//go:build windows

package win32

import (
	"errors"
	"fmt"
	"image"
	"image/draw"
	"syscall"
	"unsafe"

	"github.com/w365/w365/engine/internal/winapi"
	"golang.org/x/sys/windows"
)

// DXGI desktop duplication (Windows 8 and later): each monitor's desktop image as a
// Direct3D 11 texture, copied to a CPU-readable staging texture. It sees what GDI may
// not (full-screen Direct3D and video surfaces) and costs one GPU copy per monitor.

// firstFrameTimeoutMillis bounds the wait for a new duplication's first frame.
const firstFrameTimeoutMillis = 500

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
	device, context, dupl, stg unsafe.Pointer
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
	for _, p := range []*windows.LazyProc{winapi.ProcCreateDXGIFactory1, winapi.ProcD3D11CreateDevice} {
		if err := p.Find(); err != nil { // Windows without DXGI 1.1 or Direct3D 11
			return d, err
		}
	}
	var factory unsafe.Pointer
	r, _, _ := winapi.ProcCreateDXGIFactory1.Call(uintptr(unsafe.Pointer(&winapi.IID_IDXGIFactory1)), uintptr(unsafe.Pointer(&factory)))
	if err := winapi.DXGIErrors.Check("CreateDXGIFactory1", r); err != nil {
		return d, err
	}
	defer winapi.Release(factory)
	for a := 0; ; a++ {
		var adapter unsafe.Pointer
		r, _, _ := syscall.SyscallN(winapi.Method(factory, winapi.IDXGIFactory1_EnumAdapters1), uintptr(factory), uintptr(a), uintptr(unsafe.Pointer(&adapter)))
		if uint32(r) == winapi.DXGI_ERROR_NOT_FOUND {
			break
		}
		if err := winapi.DXGIErrors.Check("IDXGIFactory1::EnumAdapters1", r); err != nil {
			return d, err
		}
		err := d.addAdapter(adapter)
		winapi.Release(adapter)
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
func (d *duplication) addAdapter(adapter unsafe.Pointer) error {
	for i := 0; ; i++ {
		var output unsafe.Pointer
		r, _, _ := syscall.SyscallN(winapi.Method(adapter, winapi.IDXGIAdapter_EnumOutputs), uintptr(adapter), uintptr(i), uintptr(unsafe.Pointer(&output)))
		if uint32(r) == winapi.DXGI_ERROR_NOT_FOUND {
			return nil
		}
		if err := winapi.DXGIErrors.Check("IDXGIAdapter1::EnumOutputs", r); err != nil {
			return err
		}
		o, err := duplicateOutput(adapter, output)
		winapi.Release(output)
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
func duplicateOutput(adapter, output unsafe.Pointer) (*dupOutput, error) {
	var desc winapi.DXGI_OUTPUT_DESC
	r, _, _ := syscall.SyscallN(winapi.Method(output, winapi.IDXGIOutput_GetDesc), uintptr(output), uintptr(unsafe.Pointer(&desc)))
	if err := winapi.DXGIErrors.Check("IDXGIOutput::GetDesc", r); err != nil {
		return nil, err
	}
	if desc.AttachedToDesktop == 0 {
		return nil, nil
	}
	if desc.Rotation > winapi.DXGI_MODE_ROTATION_IDENTITY {
		return nil, fmt.Errorf("output %s is rotated (DXGI_MODE_ROTATION %d)", windows.UTF16ToString(desc.DeviceName[:]), desc.Rotation)
	}
	c := desc.DesktopCoordinates
	o := &dupOutput{rect: image.Rect(int(c.Left), int(c.Top), int(c.Right), int(c.Bottom))}
	r, _, _ = winapi.ProcD3D11CreateDevice.Call(uintptr(adapter), 0 /* D3D_DRIVER_TYPE_UNKNOWN: the adapter's */, 0, 0, 0, 0,
		winapi.D3D11_SDK_VERSION, uintptr(unsafe.Pointer(&o.device)), 0, uintptr(unsafe.Pointer(&o.context)))
	if err := winapi.DXGIErrors.Check("D3D11CreateDevice", r); err != nil {
		return nil, err
	}
	output1, err := winapi.DXGIErrors.QueryInterface(output, &winapi.IID_IDXGIOutput1, "IDXGIOutput::QueryInterface(IDXGIOutput1)")
	if err != nil {
		o.close()
		return nil, err
	}
	r, _, _ = syscall.SyscallN(winapi.Method(output1, winapi.IDXGIOutput1_DuplicateOutput), uintptr(output1), uintptr(o.device), uintptr(unsafe.Pointer(&o.dupl)))
	winapi.Release(output1)
	if err := winapi.DXGIErrors.Check("IDXGIOutput1::DuplicateOutput", r); err != nil {
		o.close()
		return nil, err
	}
	var dd winapi.DXGI_OUTDUPL_DESC
	syscall.SyscallN(winapi.Method(o.dupl, winapi.IDXGIOutputDuplication_GetDesc), uintptr(o.dupl), uintptr(unsafe.Pointer(&dd)))
	if dd.Format != winapi.DXGI_FORMAT_B8G8R8A8_UNORM || int(dd.Width) != o.rect.Dx() || int(dd.Height) != o.rect.Dy() {
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
	var info winapi.DXGI_OUTDUPL_FRAME_INFO
	var res unsafe.Pointer
	r, _, _ := syscall.SyscallN(winapi.Method(o.dupl, winapi.IDXGIOutputDuplication_AcquireNextFrame), uintptr(o.dupl), timeout, uintptr(unsafe.Pointer(&info)), uintptr(unsafe.Pointer(&res)))
	switch uint32(r) {
	case winapi.DXGI_ERROR_WAIT_TIMEOUT:
		if o.frame != nil {
			return nil
		}
	case winapi.DXGI_ERROR_ACCESS_LOST:
		return errAccessLost
	}
	if err := winapi.DXGIErrors.Check("IDXGIOutputDuplication::AcquireNextFrame", r); err != nil {
		return err
	}
	defer syscall.SyscallN(winapi.Method(o.dupl, winapi.IDXGIOutputDuplication_ReleaseFrame), uintptr(o.dupl))
	defer winapi.Release(res)
	if info.LastPresentTime == 0 && o.frame != nil {
		return nil // only the pointer moved
	}
	tex, err := winapi.DXGIErrors.QueryInterface(res, &winapi.IID_ID3D11Texture2D, "IDXGIResource::QueryInterface(ID3D11Texture2D)")
	if err != nil {
		return err
	}
	defer winapi.Release(tex)
	if o.stg == nil {
		var desc winapi.D3D11_TEXTURE2D_DESC
		syscall.SyscallN(winapi.Method(tex, winapi.ID3D11Texture2D_GetDesc), uintptr(tex), uintptr(unsafe.Pointer(&desc)))
		if int(desc.Width) != o.rect.Dx() || int(desc.Height) != o.rect.Dy() {
			return fmt.Errorf("the desktop texture is %dx%d, the output %v", desc.Width, desc.Height, o.rect)
		}
		desc.MipLevels, desc.ArraySize, desc.SampleCount, desc.SampleQuality = 1, 1, 1, 0
		desc.Usage, desc.BindFlags, desc.CPUAccessFlags, desc.MiscFlags = winapi.D3D11_USAGE_STAGING, 0, winapi.D3D11_CPU_ACCESS_READ, 0
		r, _, _ := syscall.SyscallN(winapi.Method(o.device, winapi.ID3D11Device_CreateTexture2D), uintptr(o.device), uintptr(unsafe.Pointer(&desc)), 0, uintptr(unsafe.Pointer(&o.stg)))
		if err := winapi.DXGIErrors.Check("ID3D11Device::CreateTexture2D(staging)", r); err != nil {
			return err
		}
	}
	syscall.SyscallN(winapi.Method(o.context, winapi.ID3D11DeviceContext_CopyResource), uintptr(o.context), uintptr(o.stg), uintptr(tex))
	var m winapi.D3D11_MAPPED_SUBRESOURCE
	r, _, _ = syscall.SyscallN(winapi.Method(o.context, winapi.ID3D11DeviceContext_Map), uintptr(o.context), uintptr(o.stg), 0, winapi.D3D11_MAP_READ, 0, uintptr(unsafe.Pointer(&m)))
	if err := winapi.DXGIErrors.Check("ID3D11DeviceContext::Map", r); err != nil {
		return err
	}
	defer syscall.SyscallN(winapi.Method(o.context, winapi.ID3D11DeviceContext_Unmap), uintptr(o.context), uintptr(o.stg), 0)
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
	for _, c := range []unsafe.Pointer{o.stg, o.dupl, o.context, o.device} {
		winapi.Release(c)
	}
	*o = dupOutput{}
}

func (d *duplication) close() {
	for _, o := range d.outputs {
		o.close()
	}
	d.outputs = nil
}
