// The C++ half of greeter.exe: writes Farewell with the provider greeter.c registered.
#include <windows.h>
#include "greeter.h"

extern "C" void say_farewell(void)
{
    // Several strings of one event field travel packed, each with its nul.
    static const char names[] = "Ada\0Grace\0Linus";
    EventWriteFarewell(3, static_cast<ULONG>(sizeof(names)), names);
}
