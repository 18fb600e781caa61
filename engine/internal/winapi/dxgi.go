//go:build windows

package winapi

import "golang.org/x/sys/windows"

// DXGI desktop duplication and Direct3D 11 (dxgi.h, dxgi1_2.h, d3d11.h).
var (
	DXGI  = windows.NewLazySystemDLL("dxgi.dll")
	D3D11 = windows.NewLazySystemDLL("d3d11.dll")

	ProcCreateDXGIFactory1 = DXGI.NewProc("CreateDXGIFactory1")
	ProcD3D11CreateDevice  = D3D11.NewProc("D3D11CreateDevice")

	IID_IDXGIFactory1   = windows.GUID{Data1: 0x770aae78, Data2: 0xf26f, Data3: 0x4dba, Data4: [8]byte{0xa8, 0x29, 0x25, 0x3c, 0x83, 0xd1, 0xb3, 0x87}}
	IID_IDXGIOutput1    = windows.GUID{Data1: 0x00cddea8, Data2: 0x939b, Data3: 0x4b83, Data4: [8]byte{0xa3, 0x40, 0xa6, 0x85, 0x22, 0x66, 0x66, 0xcc}}
	IID_ID3D11Texture2D = windows.GUID{Data1: 0x6f15aaf2, Data2: 0xd208, Data3: 0x4e89, Data4: [8]byte{0x9a, 0xb4, 0x48, 0x95, 0x35, 0xd3, 0x4f, 0x9c}}
)

// Vtable slots (mingw-w64's dxgi.h, dxgi1_2.h and d3d11.h, C interface order).
const (
	IDXGIFactory1_EnumAdapters1             = 12
	IDXGIAdapter_EnumOutputs                = 7
	IDXGIOutput_GetDesc                     = 7
	IDXGIOutput1_DuplicateOutput            = 22
	IDXGIOutputDuplication_GetDesc          = 7
	IDXGIOutputDuplication_AcquireNextFrame = 8
	IDXGIOutputDuplication_ReleaseFrame     = 14
	ID3D11Device_CreateTexture2D            = 5
	ID3D11DeviceContext_Map                 = 14
	ID3D11DeviceContext_Unmap               = 15
	ID3D11DeviceContext_CopyResource        = 47
	ID3D11Texture2D_GetDesc                 = 10
)

// Constants the duplication passes or compares.
const (
	D3D11_SDK_VERSION           = 7
	DXGI_FORMAT_B8G8R8A8_UNORM  = 87
	DXGI_MODE_ROTATION_IDENTITY = 1
	D3D11_USAGE_STAGING         = 3
	D3D11_CPU_ACCESS_READ       = 0x20000
	D3D11_MAP_READ              = 1
)

type DXGI_OUTPUT_DESC struct {
	DeviceName         [32]uint16
	DesktopCoordinates windows.Rect
	AttachedToDesktop  int32
	Rotation           uint32
	Monitor            uintptr
}

type DXGI_OUTDUPL_DESC struct {
	Width, Height                        uint32
	RefreshNumerator, RefreshDenominator uint32
	Format, ScanlineOrdering, Scaling    uint32
	Rotation                             uint32
	DesktopImageInSystemMemory           int32
}

type DXGI_OUTDUPL_FRAME_INFO struct {
	LastPresentTime, LastMouseUpdateTime       int64
	AccumulatedFrames                          uint32
	RectsCoalesced, ProtectedContentMaskedOut  int32
	PointerX, PointerY, PointerVisible         int32
	TotalMetadataBufferSize, PointerShapeBytes uint32
}

type D3D11_TEXTURE2D_DESC struct {
	Width, Height, MipLevels, ArraySize, Format uint32
	SampleCount, SampleQuality                  uint32
	Usage, BindFlags, CPUAccessFlags, MiscFlags uint32
}

type D3D11_MAPPED_SUBRESOURCE struct {
	Data                 uintptr
	RowPitch, DepthPitch uint32
}
