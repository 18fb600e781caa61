/* A window that writes the mouse and keyboard messages it receives to a log file
   (argv[1]), one per line, with screen coordinates: the wine tests read it to check
   what SendInput delivered. Built with mingw by the tests; not part of w365. */
#include <windows.h>
#include <stdio.h>

static FILE *logf;

static void logpt(const char *what, HWND h, LPARAM lp, int extra)
{
	POINT p = {(short)LOWORD(lp), (short)HIWORD(lp)};
	ClientToScreen(h, &p);
	fprintf(logf, "%s %ld %ld %d\n", what, p.x, p.y, extra);
	fflush(logf);
}

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM wp, LPARAM lp)
{
	switch (m) {
	case WM_LBUTTONDOWN: logpt("down-left", h, lp, 0); SetCapture(h); return 0;
	case WM_LBUTTONUP: logpt("up-left", h, lp, 0); ReleaseCapture(); return 0;
	case WM_LBUTTONDBLCLK: logpt("dblclk-left", h, lp, 0); return 0;
	case WM_RBUTTONDOWN: logpt("down-right", h, lp, 0); return 0;
	case WM_RBUTTONUP: logpt("up-right", h, lp, 0); return 0;
	case WM_MBUTTONDOWN: logpt("down-middle", h, lp, 0); return 0;
	case WM_MBUTTONUP: logpt("up-middle", h, lp, 0); return 0;
	case WM_XBUTTONDOWN: logpt("down-x", h, lp, GET_XBUTTON_WPARAM(wp)); return TRUE;
	case WM_XBUTTONUP: logpt("up-x", h, lp, GET_XBUTTON_WPARAM(wp)); return TRUE;
	case WM_MOUSEMOVE:
		if (wp & MK_LBUTTON) logpt("move-left", h, lp, 0);
		return 0;
	case WM_MOUSEWHEEL:
		fprintf(logf, "wheel %d %d %d\n", (short)LOWORD(lp), (short)HIWORD(lp), GET_WHEEL_DELTA_WPARAM(wp));
		fflush(logf);
		return 0;
	case WM_MOUSEHWHEEL:
		fprintf(logf, "hwheel %d %d %d\n", (short)LOWORD(lp), (short)HIWORD(lp), GET_WHEEL_DELTA_WPARAM(wp));
		fflush(logf);
		return 0;
	case WM_KEYDOWN:
	case WM_SYSKEYDOWN:
		fprintf(logf, "key %u %u\n", (unsigned)wp, (unsigned)((lp >> 16) & 0xff));
		fflush(logf);
		return 0;
	case WM_DESTROY: PostQuitMessage(0); return 0;
	}
	return DefWindowProcW(h, m, wp, lp);
}

int WINAPI WinMain(HINSTANCE inst, HINSTANCE prev, LPSTR cmd, int show)
{
	WNDCLASSW wc = {0};
	MSG msg;
	if (__argc < 2 || !(logf = fopen(__argv[1], "wb")))
		return 2;
	wc.style = CS_DBLCLKS;
	wc.lpfnWndProc = proc;
	wc.hInstance = inst;
	wc.hCursor = LoadCursor(NULL, IDC_ARROW);
	wc.hbrBackground = (HBRUSH)(COLOR_WINDOW + 1);
	wc.lpszClassName = L"W365InputProbe";
	RegisterClassW(&wc);
	CreateWindowW(L"W365InputProbe", L"w365 input probe", WS_OVERLAPPEDWINDOW | WS_VISIBLE,
		200, 150, 500, 400, NULL, NULL, inst, NULL);
	while (GetMessageW(&msg, NULL, 0, 0) > 0) {
		TranslateMessage(&msg);
		DispatchMessageW(&msg);
	}
	return 0;
}
