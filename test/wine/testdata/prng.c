/* ProcessPrng for wine 8, which lacks it: Go's Windows runtime takes its random bytes
   from bcryptprimitives.dll!ProcessPrng and dies at start without it. Real Windows
   (10 and later) has the function; this DLL goes only into a test's private prefix. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length); /* RtlGenRandom */

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x10000000 ? 0x10000000 : (ULONG)size;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
