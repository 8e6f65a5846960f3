// libidn2: a UTF-8 domain to its ASCII (punycode) form. Links libidn2.
#ifndef CIDNSHIM_H
#define CIDNSHIM_H


/// Converts a UTF-8 domain to lowercase ASCII (punycode) per IDNA2008/UTS#46.
/// Returns 0 on success and a malloc'd string in *out; a negative libidn2 code otherwise.
int shim_domain_to_ascii(const char *utf8, char **out);

#endif
