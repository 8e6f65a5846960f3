-- wrk script for scripts/bench/serve.sh: prints one machine-readable line at the end.
done = function(summary, latency, requests)
  local seconds = summary.duration / 1e6
  local errors = summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout
  io.write(string.format("RESULT rps=%.1f p99_ms=%.3f requests=%d errors=%d status_errors=%d bytes=%d\n",
    summary.requests / seconds, latency:percentile(99) / 1000, summary.requests, errors, summary.errors.status, summary.bytes))
end
