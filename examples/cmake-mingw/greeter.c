/* greeter.exe: registers the Etwmc-Examples-Greeter provider and writes its events with
   the macros `etwmc mc` generated in greeter.h.  farewell.cpp writes one more event from
   C++: both translation units share the provider's registration. */
#include <windows.h>
#include "greeter.h"

void say_farewell(void);

int main(void)
{
    static const GUID sample_id = {0x6f8a2b1c, 0x3d4e, 0x4f50, {0x81, 0x92, 0xa3, 0xb4, 0xc5, 0xd6, 0xe7, 0xf8}};
    const INT32 readings[3] = {17, -4, 250};
    const BYTE bytes[4] = {0xde, 0xad, 0xbe, 0xef};
    const INT32 points[2][2] = {{1, 2}, {3, 4}};
    const WCHAR note[] = L"counted";
    FILETIME now;
    ULONG status;

    status = EventRegisterEtwmc_Examples_Greeter();
    if (EventEnabledGreeting()) {
        /* Only build costly payloads when a session listens. */
    }
    EventWriteGreeting(L"world", 3, MOOD_HAPPY);
    GetSystemTimeAsFileTime(&now);
    EventWriteSample(&sample_id, &now, readings, (USHORT)sizeof(bytes), bytes,
                     (ULONG)(sizeof(note) / sizeof(WCHAR) - 1), note, 0.5,
                     (ULONG)sizeof(points[0]), points);
    say_farewell();
    EventUnregisterEtwmc_Examples_Greeter();
    return status == ERROR_SUCCESS ? 0 : 1;
}
