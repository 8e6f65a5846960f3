// libcurl's variadic curl_easy_setopt/getinfo as typed calls. Links libcurl.
#ifndef CCURLSHIM_H
#define CCURLSHIM_H

#include <curl/curl.h>

CURLcode shim_curl_setopt_long(CURL *handle, CURLoption option, long value);
CURLcode shim_curl_setopt_off_t(CURL *handle, CURLoption option, curl_off_t value);
CURLcode shim_curl_setopt_string(CURL *handle, CURLoption option, const char *value);
CURLcode shim_curl_setopt_pointer(CURL *handle, CURLoption option, void *value);
CURLcode shim_curl_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value);

typedef size_t (*shim_curl_data_callback)(char *ptr, size_t size, size_t nmemb, void *userdata);
CURLcode shim_curl_setopt_write_callback(CURL *handle, shim_curl_data_callback callback);
CURLcode shim_curl_setopt_header_callback(CURL *handle, shim_curl_data_callback callback);

CURLcode shim_curl_getinfo_long(CURL *handle, CURLINFO info, long *value);

#endif
