/*
 * bcryptprimitives.c: the one function of Windows' bcryptprimitives.dll
 * that the Go runtime loads at start (ProcessPrng, Windows 10 and later),
 * for Wine 8, which lacks it: a Go 1.26 program there stops with "fatal
 * error: bcryptprimitives.dll not found". It fills the buffer from
 * RtlGenRandom (advapi32's SystemFunction036), which Wine has.
 *
 * A test fixture for `make test-windows` only: it is copied into the
 * private Wine prefix of the tests, and is never part of what users
 * install. Built with Debian's mingw-w64:
 *
 *   x86_64-w64-mingw32-gcc -shared -o bcryptprimitives.dll \
 *       bcryptprimitives.c bcryptprimitives.def -ladvapi32
 */
#include <windows.h>
#include <ntsecapi.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!RtlGenRandom(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
