// What the Node bench-peers clients (bitget-api.js, raw-ws.js) share: where the pinned clients
// are installed, the settings from the environment (set by scripts/bench-peers.sh), and the
// `RESULT <client> <leg> n= p50= p90= p99= p999=` line the script assembles its table from
// (exact nearest-rank percentiles, µs). A bad environment exits 2.
'use strict';

const path = require('node:path');

module.exports = function peer(name) {
  function env(key, dflt) {
    const v = process.env[key];
    if (v) return v;
    if (dflt !== undefined) return dflt;
    console.error(`${name}: missing environment variable ${key}`);
    process.exit(2);
  }

  function count(key, dflt, min) {
    const v = Number(env(key, String(dflt)));
    if (!Number.isInteger(v) || v < min) {
      console.error(`${name}: ${key} must be an integer >= ${min}`);
      process.exit(2);
    }
    return v;
  }

  /** Nearest-rank percentile (the smallest sample with at least `q` of them at or below it). */
  function percentile(sorted, q) {
    const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
    return sorted[rank - 1];
  }

  function resultLine(leg, samplesNs) {
    const s = Float64Array.from(samplesNs).sort();
    const us = (q) => (percentile(s, q) / 1e3).toFixed(1);
    return `RESULT ${name} ${leg} n=${s.length} p50=${us(0.5)} p90=${us(0.9)} p99=${us(0.99)} p999=${us(0.999)}`;
  }

  return {
    /** Where tests/clients installed the pinned packages (`npm ci`). */
    CLIENTS: process.env.BENCH_CLIENTS_DIR || path.join(__dirname, '..', '..', 'tests', 'clients'),
    /** A request unanswered this long fails the run. */
    STALL_MS: 10000,
    WS_URL: env('SIM_WS_PRIVATE_URL'),
    ITERATIONS: count('BENCH_ITERATIONS', 2000, 1),
    WARMUP: count('BENCH_WARMUP', 200, 0),
    SYMBOL: env('BENCH_SYMBOL', 'BTCUSDT'),
    CATEGORY: env('BENCH_CATEGORY', 'usdt-futures'),
    PRICE: env('BENCH_PRICE', '58000'),
    QTY: env('BENCH_QTY', '0.001'),
    env,
    resultLine,
  };
};
