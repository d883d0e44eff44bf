#!/usr/bin/env node
// bench-peers client (b): the npm `bitget-api` SDK's WebSocket API client (`WebsocketAPIClient`,
// version pinned by tests/clients/package-lock.json, installed there by `npm ci`), unmodified and
// pointed at bitget-sim through its public `wsUrl` option. The simulator's certificate is trusted
// through NODE_EXTRA_CA_CERTS (set by scripts/bench-peers.sh).
//
// Repeats, one request in flight: `submitNewOrder` (place-order, a resting limit buy) → its reply
// → `cancelOrder` (cancel-order by orderId) → its reply. A round trip is the time from the SDK
// call to its promise resolving (the SDK's own work included). The first BENCH_WARMUP iterations
// (the connection and login happen in the first) are not recorded.
//
// Environment: SIM_WS_PRIVATE_URL, SIM_API_KEY, SIM_API_SECRET, SIM_API_PASSPHRASE;
// BENCH_ITERATIONS (2000), BENCH_WARMUP (200), BENCH_SYMBOL (BTCUSDT), BENCH_CATEGORY
// (usdt-futures), BENCH_PRICE (58000), BENCH_QTY (0.001); BENCH_CLIENTS_DIR (tests/clients).
// Prints `RESULT bitget-api <leg> n=<N> p50=<us> p90=<us> p99=<us> p999=<us>` for the legs
// `place` and `cancel` (exact nearest-rank percentiles, µs); exits 1 on any refused or
// unanswered request, 2 on a bad environment.
'use strict';

const path = require('node:path');

const NAME = 'bitget-api';
const { CLIENTS, STALL_MS, WS_URL, ITERATIONS, WARMUP, SYMBOL, CATEGORY, PRICE, QTY, env, resultLine } =
  require('./common.js')(NAME);
const { WebsocketAPIClient } = require(path.join(CLIENTS, 'node_modules', 'bitget-api'));

function describe(e) {
  try {
    return typeof e === 'string' ? e : JSON.stringify(e);
  } catch {
    return String(e);
  }
}

/** The SDK logs every event at info level; keep errors only. */
const quietLogger = {
  trace: () => {},
  info: () => {},
  error: (...a) => console.error(`  [${NAME} error]`, ...a.map(describe)),
};

async function main() {
  const api = new WebsocketAPIClient(
    {
      apiKey: env('SIM_API_KEY'),
      apiSecret: env('SIM_API_SECRET'),
      apiPass: env('SIM_API_PASSPHRASE'),
      wsUrl: WS_URL,
      attachEventListeners: false,
    },
    quietLogger,
  );
  // A watchdog instead of a timer per request: nothing is added to the measured path.
  let progressAt = Date.now();
  let phase = 'connect';
  const watchdog = setInterval(() => {
    if (Date.now() - progressAt > STALL_MS) {
      console.error(`${NAME}: no reply within ${STALL_MS} ms (${phase})`);
      process.exit(1);
    }
  }, 1000);

  const place = [];
  const cancel = [];
  const stamp = Date.now().toString(36);
  const now = process.hrtime.bigint;
  for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
    phase = `place ${i}`;
    const t0 = now();
    const placed = await api.submitNewOrder(CATEGORY, {
      symbol: SYMBOL,
      orderType: 'limit',
      qty: QTY,
      price: PRICE,
      side: 'buy',
      timeInForce: 'gtc',
      clientOid: `bapi${stamp}${i}`,
    });
    const t1 = now();
    const orderId = placed && placed.code === '0' && placed.args && placed.args[0] && placed.args[0].orderId;
    if (!orderId) throw new Error(`place-order ${i}: unexpected reply ${describe(placed)}`);
    phase = `cancel ${i}`;
    const t2 = now();
    const cancelled = await api.cancelOrder(CATEGORY, { symbol: SYMBOL, orderId });
    const t3 = now();
    if (!cancelled || cancelled.code !== '0') {
      throw new Error(`cancel-order ${i}: unexpected reply ${describe(cancelled)}`);
    }
    progressAt = Date.now();
    if (i >= WARMUP) {
      place.push(Number(t1 - t0));
      cancel.push(Number(t3 - t2));
    }
  }
  clearInterval(watchdog);
  api.getWSClient().closeAll(true);
  console.log(resultLine('place', place));
  console.log(resultLine('cancel', cancel));
  process.exit(0);
}

main().catch((e) => {
  // The SDK rejects with the venue's error reply (an object), not an Error.
  console.error(`${NAME}: ${e && e.stack ? e.stack : describe(e)}`);
  process.exit(1);
});
