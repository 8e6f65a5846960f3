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
#
# Two origins (a primary and a follower serving the same signed set, docs/followers.md) behind a
# fallback director: every fetch goes to the first healthy one in order, health coming from a probe
# of /healthz (200 only while a set is installed). The primary is preferred, and the manifest is
# asked of it first even while its probe fails (a busy primary, see vcl_backend_fetch), so devices
# never see the follower's older manifest while the primary answers; the follower takes over when
# the primary dies. A fetch that fails (connection refused, 5xx) or answers 404 is retried once
# on the other origin: a file the manifest names may not have reached a lagging follower yet, and a
# dying origin's in-flight fetches must not reach devices as errors. With no healthy origin the
# first one is asked anyway, so its own answer (e.g. a cold start's 503 with Retry-After) comes through.
#
# __ORIGIN_HOST__/__ORIGIN_PORT__ (the primary) and __SECOND_HOST__/__SECOND_PORT__ (the follower)
# are filled in by scripts/varnish/render-vcl.sh; with one origin, both name it and __TWO_ORIGINS__ is
# "no", so nothing is retried on the same origin (a cold-start 503 or a missing patch reaches it once).
vcl 4.1;

import directors;
import std;

probe healthz {
    .url = "/healthz";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

backend origin {
    .host = "__ORIGIN_HOST__";
    .port = "__ORIGIN_PORT__";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
    .probe = healthz;
}

backend second {
    .host = "__SECOND_HOST__";
    .port = "__SECOND_PORT__";
    .connect_timeout = 2s;
    .first_byte_timeout = 30s;
    .probe = healthz;
}

sub vcl_init {
    new origins = directors.fallback();
    origins.add_backend(origin);
    origins.add_backend(second);
    # The retry goes the other way round, so it reaches the origin the first try did not.
    new others = directors.fallback();
    others.add_backend(second);
    others.add_backend(origin);
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
    if (bereq.retries == 0 && bereq.url ~ "^/(manifest\.json|lists/)" && "__TWO_ORIGINS__" == "yes") {
        # The URLs whose content changes (the manifest and the stable list aliases) are asked of
        # the primary first even when its probe says sick: a primary slowed by a conversion can
        # miss probes, and the follower may not have its newest set yet, so the edge would hand
        # devices an older manifest after a newer one (devices refuse that as a rollback). A dead
        # primary refuses at once and a hung one is given 3 s; either way the follower is asked next.
        set bereq.backend = origin;
        if (!std.healthy(origin)) {
            set bereq.connect_timeout = 1s;
            set bereq.first_byte_timeout = 3s;
        }
    } else if (bereq.retries == 0) {
        set bereq.backend = origins.backend();
        if (!bereq.backend) {
            set bereq.backend = origin;
        }
    } else {
        set bereq.backend = others.backend();
        if (!bereq.backend) {
            set bereq.backend = second;
        }
    }
    if (bereq.http.X-Dictionary-Coding == "dcz") {
        set bereq.http.Accept-Encoding = "dcz, gzip";
    }
    unset bereq.http.X-Dictionary-Coding;
}

sub vcl_backend_response {
    if (bereq.retries == 0 && "__TWO_ORIGINS__" == "yes" && (beresp.status == 404 || beresp.status >= 500) && bereq.method ~ "^(GET|HEAD)$") {
        return (retry);
    }
    # Keep expired objects (with their ETag) for conditional revalidation.
    set beresp.keep = 1h;
}

sub vcl_backend_error {
    # Connection refused or timed out (an origin just died): once more, on the other origin.
    if (bereq.retries == 0 && "__TWO_ORIGINS__" == "yes") {
        return (retry);
    }
}
