#!/usr/bin/env node
// bench-peers client (c): a bare Node WebSocket client, the least a Node strategy can do. The
// `ws` package (a dependency of bitget-api, so installed in tests/clients/node_modules by
// `npm ci`), hand-built JSON request strings, and the login signature made here:
// base64(HMAC-SHA256(secret, timestamp + "GET" + "/user/verify")), timestamp in seconds
// (reference §1.3). The simulator's certificate is trusted through NODE_EXTRA_CA_CERTS (set by
// scripts/bench-peers.sh).
//
// Repeats, one request in flight: place-order (a resting limit buy) → its reply → cancel-order
// (by orderId) → its reply. A round trip is the time from before the request string is built to
// the moment its reply (matched by `id`, after JSON.parse) is read. The first BENCH_WARMUP
// iterations are not recorded.
//
// Environment: SIM_WS_PRIVATE_URL, SIM_API_KEY, SIM_API_SECRET, SIM_API_PASSPHRASE;
// BENCH_ITERATIONS (2000), BENCH_WARMUP (200), BENCH_SYMBOL (BTCUSDT), BENCH_CATEGORY
// (usdt-futures), BENCH_PRICE (58000), BENCH_QTY (0.001); BENCH_CLIENTS_DIR (tests/clients).
// Prints `RESULT raw-ws <leg> n=<N> p50=<us> p90=<us> p99=<us> p999=<us>` for the legs `place`
// and `cancel` (exact nearest-rank percentiles, µs); exits 1 on any refused or unanswered
// request, 2 on a bad environment.
'use strict';

const crypto = require('node:crypto');
const path = require('node:path');

const NAME = 'raw-ws';
const { CLIENTS, STALL_MS, WS_URL, ITERATIONS, WARMUP, SYMBOL, CATEGORY, PRICE, QTY, env, resultLine } =
  require('./common.js')(NAME);
const WebSocket = require(path.join(CLIENTS, 'node_modules', 'ws'));
const API_KEY = env('SIM_API_KEY');
const SECRET = env('SIM_API_SECRET');
const PASSPHRASE = env('SIM_API_PASSPHRASE');

function fail(what) {
  console.error(`${NAME}: ${what}`);
  process.exit(1);
}

async function main() {
  const ws = new WebSocket(WS_URL, { perMessageDeflate: false });
  ws.on('error', (e) => fail(`websocket error: ${e.message}`));
  ws.on('close', (code, reason) => fail(`websocket closed: ${code} ${reason}`));
  await new Promise((resolve) => ws.once('open', resolve));

  // The one request in flight: its id, and what to do with its reply.
  let pending = null;
  let onLogin = null;
  ws.on('message', (data) => {
    const at = process.hrtime.bigint();
    const text = data.toString();
    if (text[0] !== '{') return; // "pong"
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      fail(`not JSON: ${text}`);
    }
    if (msg.event === 'login' || (msg.event === 'error' && msg.id === undefined)) {
      if (onLogin) onLogin(msg);
      return;
    }
    if (pending && msg.id === pending.id) {
      const p = pending;
      pending = null;
      p.resolve({ msg, at });
    }
  });

  const ts = Math.floor(Date.now() / 1000).toString();
  const sign = crypto.createHmac('sha256', SECRET).update(`${ts}GET/user/verify`).digest('base64');
  const login = await new Promise((resolve) => {
    onLogin = resolve;
    ws.send(
      `{"op":"login","args":[{"apiKey":${JSON.stringify(API_KEY)},"passphrase":${JSON.stringify(PASSPHRASE)},"timestamp":"${ts}","sign":"${sign}"}]}`,
    );
  });
  if (login.event !== 'login' || String(login.code) !== '0') fail(`login refused: ${JSON.stringify(login)}`);

  let progressAt = Date.now();
  let phase = 'login';
  const watchdog = setInterval(() => {
    if (Date.now() - progressAt > STALL_MS) fail(`no reply within ${STALL_MS} ms (${phase})`);
  }, 1000);

  let nextId = 0;
  /** Sends one request (built by `build(id)`) and resolves with its reply and the read time. */
  const request = (build) =>
    new Promise((resolve) => {
      nextId += 1;
      const id = String(nextId);
      pending = { id, resolve };
      ws.send(build(id));
    });

  const place = [];
  const cancel = [];
  const stamp = Date.now().toString(36);
  const now = process.hrtime.bigint;
  for (let i = 0; i < WARMUP + ITERATIONS; i += 1) {
    phase = `place ${i}`;
    const oid = `rws${stamp}${i}`;
    const t0 = now();
    const placed = await request(
      (id) =>
        `{"op":"trade","id":"${id}","category":"${CATEGORY}","topic":"place-order","args":[{"symbol":"${SYMBOL}","orderType":"limit","qty":"${QTY}","price":"${PRICE}","side":"buy","timeInForce":"gtc","clientOid":"${oid}"}]}`,
    );
    const r = placed.msg;
    const orderId = r.event === 'trade' && r.code === '0' && r.args && r.args[0] && r.args[0].orderId;
    if (!orderId) fail(`place-order ${i}: ${JSON.stringify(r)}`);
    phase = `cancel ${i}`;
    const t2 = now();
    const cancelled = await request(
      (id) =>
        `{"op":"trade","id":"${id}","category":"${CATEGORY}","topic":"cancel-order","args":[{"symbol":"${SYMBOL}","orderId":"${orderId}"}]}`,
    );
    if (cancelled.msg.event !== 'trade' || cancelled.msg.code !== '0') {
      fail(`cancel-order ${i}: ${JSON.stringify(cancelled.msg)}`);
    }
    progressAt = Date.now();
    if (i >= WARMUP) {
      place.push(Number(placed.at - t0));
      cancel.push(Number(cancelled.at - t2));
    }
  }
  clearInterval(watchdog);
  ws.removeAllListeners('close');
  ws.close();
  console.log(resultLine('place', place));
  console.log(resultLine('cancel', cancel));
  process.exit(0);
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));
