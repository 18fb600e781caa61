/* A stand-in for msedge.exe / chrome.exe in the wine tests (wine has no Edge): it writes
   its command line, and whether the two handles --remote-debugging-io-pipes names are
   pipes it inherited, to the file beside it named like it plus ".args", then exits 1,
   as a browser that dies at start. */
#include <windows.h>
#include <wchar.h>
#include <stdio.h>

int main(void)
{
	wchar_t path[MAX_PATH + 8];
	DWORD n = GetModuleFileNameW(NULL, path, MAX_PATH);
	if (n == 0 || n >= MAX_PATH)
		return 2;
	wcscat(path, L".args");
	HANDLE f = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, FILE_ATTRIBUTE_NORMAL, NULL);
	if (f == INVALID_HANDLE_VALUE)
		return 3;
	const wchar_t *cl = GetCommandLineW();
	const char *pipes = "pipes=none";
	const wchar_t *flag = wcsstr(cl, L"--remote-debugging-io-pipes=");
	unsigned long long r, w;
	if (flag && swscanf(flag, L"--remote-debugging-io-pipes=%llu,%llu", &r, &w) == 2)
		pipes = GetFileType((HANDLE)(ULONG_PTR)r) == FILE_TYPE_PIPE && GetFileType((HANDLE)(ULONG_PTR)w) == FILE_TYPE_PIPE ? "pipes=ok" : "pipes=bad";
	static char buf[32768];
	int len = WideCharToMultiByte(CP_UTF8, 0, cl, -1, buf, sizeof buf - 64, NULL, NULL);
	if (len <= 0)
		len = 1;
	len--; /* the NUL */
	len += snprintf(buf + len, 64, "\n%s\n", pipes);
	DWORD done;
	WriteFile(f, buf, (DWORD)len, &done, NULL);
	CloseHandle(f);
	return 1;
}
