/* Holds the Windows clipboard open for argv[1] milliseconds, as a clipboard manager or an
   application in the middle of a copy does: prints "held" once it has it. It opens the
   clipboard with a window of its own so that GetOpenClipboardWindow names it. */
#include <windows.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int ms = argc > 1 ? atoi(argv[1]) : 5000;
	HWND w = CreateWindowExW(0, L"STATIC", L"holdclip", 0, 0, 0, 0, 0, HWND_MESSAGE, NULL, NULL, NULL);
	if (!w || !OpenClipboard(w)) {
		fprintf(stderr, "OpenClipboard failed: %lu\n", GetLastError());
		return 1;
	}
	printf("held\n");
	fflush(stdout);
	Sleep(ms);
	CloseClipboard();
	return 0;
}
