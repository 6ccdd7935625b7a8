/* service.exe: registers the Etwmc-Examples-Service provider, writes its ServiceStarted
   event with the macros of service.h, and formats its own status messages (the ids of
   messages.h) from the message tables linked into the program. */
#include <windows.h>
#include <stdio.h>
#include "service.h"
#include "messages.h"

static void report(DWORD id, const char *insert)
{
    char text[256];
    const char *inserts[1];
    inserts[0] = insert;
    if (FormatMessageA(FORMAT_MESSAGE_FROM_HMODULE | FORMAT_MESSAGE_ARGUMENT_ARRAY,
                       GetModuleHandleA(NULL), id, MAKELANGID(LANG_ENGLISH, SUBLANG_ENGLISH_US),
                       text, sizeof(text), (va_list *)inserts)) {
        printf("0x%08lX: %s\n", (unsigned long)id, text);
    }
}

int main(void)
{
    ULONG status = EventRegisterEtwmc_Examples_Service();
    EventWriteServiceStarted(L"1.0", 4);
    report(MSG_SERVICE_READY, "4");
    report(MSG_CONFIG_MISSING, "service.ini");
    EventUnregisterEtwmc_Examples_Service();
    return status == ERROR_SUCCESS ? 0 : 1;
}
