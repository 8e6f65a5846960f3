# A minimal CDN edge for ListServer: cache exactly what the origin's headers allow (RFC 9111).
# The origin already says everything: hashed list files and dcz patch files are `immutable` for a
# year, the manifest has a short max-age with an ETag. Two additions:
#
# - `keep`, so an expired manifest stays in cache as a validator and Varnish revalidates it with
#   If-None-Match (a 304 from the origin) instead of fetching it whole. Grace (serving stale while
#   revalidating) comes from the origin's stale-while-revalidate; run varnishd with
#   `-p default_grace=0` so there is no grace beyond it.
# - RFC 9842 dictionary transport on list URLs. With http_gzip_support (the default) Varnish
#   rewrites a cacheable request's Accept-Encoding to `gzip` (or removes it) after vcl_recv and
#   fetches with `Accept-Encoding: gzip`, which would hide `dcz` from the origin. So vcl_recv
#   remembers whether the client offers a dictionary it can use (a SHA-256 byte sequence in
#   Available-Dictionary and `dcz` accepted, no Range: ranges apply to identity only), keeps
#   Available-Dictionary only then, and vcl_backend_fetch asks the origin for `dcz, gzip` for it.
#   The cache varies on Available-Dictionary through the origin's own
#   `Vary: Accept-Encoding, Available-Dictionary` (Varnish's gzip handling already folds
#   Accept-Encoding), so each dictionary gets its own cached dcz object and every other client
#   shares the gzip object, gunzipped by Varnish for clients without gzip as before.
#
# __ORIGIN_HOST__ and __ORIGIN_PORT__ are filled in by scripts/varnish/render-vcl.sh.
vcl 4.1;

backend origin {
    .host = "__ORIGIN_HOST__";
    .port = "__ORIGIN_PORT__";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
}

sub vcl_recv {
    unset req.http.X-Dictionary-Coding;
    if (req.http.Available-Dictionary ~ "^[ \t]*:[A-Za-z0-9+/]{43}=?:[ \t]*(;.*)?$"
        && req.http.Accept-Encoding ~ "(?i)(^|,)[ \t]*dcz[ \t]*(;|,|$)"
        && req.http.Accept-Encoding !~ "(?i)(^|,)[ \t]*dcz[ \t]*;[ \t]*q=0(\.0*)?[ \t]*(,|$)"
        && !req.http.Range) {
        # One spelling per dictionary, so equal offers share one cached object.
        set req.http.Available-Dictionary = regsub(req.http.Available-Dictionary, "^[ \t]*(:[A-Za-z0-9+/]{43})=?:.*$", "\1=:");
        set req.http.X-Dictionary-Coding = "dcz";
    } else {
        unset req.http.Available-Dictionary;
    }
}

sub vcl_backend_fetch {
    if (bereq.http.X-Dictionary-Coding == "dcz") {
        set bereq.http.Accept-Encoding = "dcz, gzip";
    }
    unset bereq.http.X-Dictionary-Coding;
}

sub vcl_backend_response {
    # Keep expired objects (with their ETag) for conditional revalidation.
    set beresp.keep = 1h;
}
