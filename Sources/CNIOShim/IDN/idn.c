#include "CIDNShim.h"

#include <stdlib.h>
#include <idn2.h>

int shim_domain_to_ascii(const char *utf8, char **out) {
    int flags = IDN2_NONTRANSITIONAL | IDN2_NFC_INPUT;
    int result = idn2_to_ascii_8z(utf8, out, flags);
    if (result != IDN2_OK) {
        // Fall back to transitional processing, as browsers did for some legacy names.
        result = idn2_to_ascii_8z(utf8, out, IDN2_TRANSITIONAL | IDN2_NFC_INPUT);
    }
    return result;
}
