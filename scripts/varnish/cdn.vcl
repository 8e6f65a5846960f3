# A minimal CDN edge for ListServer: cache exactly what the origin's headers allow (RFC 9111).
# The origin already says everything: hashed list files are `immutable` for a year, the manifest
# has a short max-age with an ETag. The only addition is `keep`, so an expired manifest stays in
# cache as a validator and Varnish revalidates it with If-None-Match (a 304 from the origin)
# instead of fetching it whole. Grace (serving stale while revalidating) comes from the origin's
# stale-while-revalidate; run varnishd with `-p default_grace=0` so there is no grace beyond it.
#
# __ORIGIN_HOST__ and __ORIGIN_PORT__ are filled in by scripts/varnish/render-vcl.sh.
vcl 4.1;

backend origin {
    .host = "__ORIGIN_HOST__";
    .port = "__ORIGIN_PORT__";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
}

sub vcl_backend_response {
    # Keep expired objects (with their ETag) for conditional revalidation.
    set beresp.keep = 1h;
}
