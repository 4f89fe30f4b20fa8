#!/bin/sh
# InfluxDB 1.6 (Debian's `influxdb` package: apt-get install -y influxdb) as the ingest benchmark's
# peer, on 127.0.0.1:${INFLUX_PORT:-8186}, with its files in a temporary directory removed when it
# stops (Ctrl-C or SIGTERM). Settings that matter for the comparison: every write is fsynced to the
# WAL before it is answered (`wal-fsync-delay = "0s"`, the default, written out; a longer delay
# batches fsyncs and acknowledges writes that are not on disk yet), and no per-request log line
# (our server logs none at LOG_LEVEL=info either). Then, in another shell:
#   BENCH_INFLUX_URL=http://127.0.0.1:8186 npm run bench:against -- <ref>
set -eu
PORT=${INFLUX_PORT:-8186}
DIR=$(mktemp -d "${TMPDIR:-/tmp}/ci-stats-influx.XXXXXX")
cat >"$DIR/influxdb.conf" <<CONF
reporting-disabled = true
bind-address = "127.0.0.1:$((PORT + 2))"
[meta]
  dir = "$DIR/meta"
  logging-enabled = false
[data]
  dir = "$DIR/data"
  wal-dir = "$DIR/wal"
  wal-fsync-delay = "0s"
  query-log-enabled = false
  trace-logging-enabled = false
[http]
  bind-address = "127.0.0.1:$PORT"
  log-enabled = false
  write-tracing = false
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
[logging]
  level = "warn"
CONF
influxd -config "$DIR/influxdb.conf" &
PID=$!
trap 'kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$DIR"' EXIT INT TERM
until curl -sf "http://127.0.0.1:$PORT/ping" >/dev/null; do sleep 0.2; done
curl -sf -XPOST "http://127.0.0.1:$PORT/query" --data-urlencode 'q=CREATE DATABASE bench' >/dev/null
echo "InfluxDB $(influxd version | cut -d' ' -f2) listening http://127.0.0.1:$PORT (database bench, files in $DIR; BENCH_INFLUX_PID=$PID)"
wait "$PID"
