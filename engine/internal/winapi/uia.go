//go:build windows

package winapi

import "golang.org/x/sys/windows"

// UI Automation's client classes and interfaces (UIAutomationClient.h).
var (
	CLSID_CUIAutomation8 = windows.GUID{Data1: 0xe22ad333, Data2: 0xb25f, Data3: 0x460c, Data4: [8]byte{0x83, 0xd0, 0x05, 0x81, 0x10, 0x73, 0x95, 0xc9}} // {e22ad333-b25f-460c-83d0-0581107395c9}
	CLSID_CUIAutomation  = windows.GUID{Data1: 0xff48dba4, Data2: 0x60ef, Data3: 0x4201, Data4: [8]byte{0xaa, 0x87, 0x54, 0x10, 0x3e, 0xef, 0x59, 0x4e}} // {ff48dba4-60ef-4201-aa87-54103eef594e}
	IID_IUIAutomation2   = windows.GUID{Data1: 0x34723aff, Data2: 0x0c9d, Data3: 0x49d0, Data4: [8]byte{0x98, 0x96, 0x7a, 0xb5, 0x2d, 0xf8, 0xcd, 0x8a}} // {34723aff-0c9d-49d0-9896-7ab52df8cd8a}
	IID_IUIAutomation    = windows.GUID{Data1: 0x30cbe57d, Data2: 0xd9d0, Data3: 0x452a, Data4: [8]byte{0xab, 0x13, 0x7a, 0xc5, 0xac, 0x48, 0x25, 0xee}} // {30cbe57d-d9d0-452a-ab13-7ac5ac4825ee}
)

// Vtable slots of UI Automation's interfaces (UIAutomationClient.h).
const (
	IUIAutomation_ElementFromHandleBuildCache = 10
	IUIAutomation_GetControlViewWalker        = 14
	IUIAutomation_CreateCacheRequest          = 20

	IUIAutomation2_PutConnectionTimeout  = 61
	IUIAutomation2_PutTransactionTimeout = 63

	IUIAutomationCacheRequest_AddProperty = 3

	IUIAutomationTreeWalker_GetFirstChildElementBuildCache  = 10
	IUIAutomationTreeWalker_GetNextSiblingElementBuildCache = 12

	IUIAutomationElement_GetCachedPropertyValue     = 12
	IUIAutomationElement_GetCachedControlType       = 53
	IUIAutomationElement_GetCachedName              = 55
	IUIAutomationElement_GetCachedIsEnabled         = 60
	IUIAutomationElement_GetCachedIsOffscreen       = 70
	IUIAutomationElement_GetCachedBoundingRectangle = 75
)

// UI Automation property ids (UIAutomationClient.h).
const (
	UIA_BoundingRectanglePropertyId = 30001
	UIA_ControlTypePropertyId       = 30003
	UIA_NamePropertyId              = 30005
	UIA_IsEnabledPropertyId         = 30010
	UIA_IsOffscreenPropertyId       = 30022
	UIA_ValueValuePropertyId        = 30045
	UIA_RangeValueValuePropertyId   = 30047
)
