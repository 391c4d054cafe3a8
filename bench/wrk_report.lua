-- wrk reporter for bench/bench.py: one JSON line with counts, errors and latency percentiles.
done = function(summary, latency, requests)
  local errors = summary.errors
  io.write(string.format(
    'BENCH_JSON {"requests": %d, "duration_us": %d, "bytes": %d, "connect": %d, "read": %d, ' ..
    '"write": %d, "status": %d, "timeout": %d, "p50_us": %d, "p90_us": %d, "p99_us": %d, ' ..
    '"max_us": %d, "mean_us": %.1f}\n',
    summary.requests, summary.duration, summary.bytes, errors.connect, errors.read,
    errors.write, errors.status, errors.timeout, latency:percentile(50), latency:percentile(90),
    latency:percentile(99), latency.max, latency.mean))
end
