#!/usr/bin/env node
// Runs the unmodified npm package `bitget-api` (version pinned in package-lock.json) against a
// running bitget-sim. Pointed at the simulator only through the clients' public options:
// RestClientV3 `baseUrl`, WebsocketClientV3 / WebsocketAPIClient `wsUrl`; the simulator's
// self-signed certificate is trusted through NODE_EXTRA_CA_CERTS (set by scripts/client-tests.sh).
//
// Environment: SIM_REST_URL, SIM_WS_PRIVATE_URL, SIM_API_KEY, SIM_API_SECRET, SIM_API_PASSPHRASE.
// Prints one line per check and a closing `N passed, N failed` line; exits 1 on any failure.
'use strict';

const assert = require('node:assert/strict');
const { RestClientV3, WebsocketClientV3, WebsocketAPIClient } = require('bitget-api');

const env = (name) => {
  const v = process.env[name];
  if (!v) {
    console.error(`missing environment variable ${name}`);
    process.exit(2);
  }
  return v;
};
const REST_URL = env('SIM_REST_URL');
const WS_URL = env('SIM_WS_PRIVATE_URL');
const creds = {
  apiKey: env('SIM_API_KEY'),
  apiSecret: env('SIM_API_SECRET'),
  apiPass: env('SIM_API_PASSPHRASE'),
};

/** The library logs every event at info level; keep errors only. */
const quietLogger = {
  trace: () => {},
  info: () => {},
  error: (...a) => console.error('  [bitget-api error]', ...a.map((x) => safeJson(x))),
};

function safeJson(x) {
  try {
    return typeof x === 'string' ? x : JSON.stringify(x);
  } catch {
    return String(x);
  }
}

let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    await fn();
    passed += 1;
    console.log(`ok   ${name}`);
  } catch (e) {
    failed += 1;
    console.log(`FAIL ${name}: ${e && e.stack ? e.stack : safeJson(e)}`);
  }
}

/** Rejects after `ms` so a missing reply or push fails the test instead of hanging it. */
function within(ms, promise, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no ${what} within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Collects `order` pushes (every item of every `data` array) from a WebsocketClientV3. */
class OrderPushes {
  constructor(ws) {
    this.items = [];
    this.waiters = [];
    ws.on('update', (msg) => {
      if (!msg || !msg.arg || msg.arg.topic !== 'order' || !Array.isArray(msg.data)) return;
      for (const item of msg.data) {
        this.items.push(item);
      }
      this.waiters = this.waiters.filter((w) => !w());
    });
  }
  /** Resolves with the first push (seen or future) for which `pred` holds. */
  next(pred, what) {
    return within(
      10000,
      new Promise((resolve) => {
        const test = () => {
          const hit = this.items.find(pred);
          if (hit) {
            resolve(hit);
            return true;
          }
          return false;
        };
        if (!test()) this.waiters.push(test);
      }),
      what,
    );
  }
}

/** Bid/ask from the public orderbook; a buy 10 % under the best bid rests and never fills. */
async function restingBuyPrice(rest, category, symbol, decimals) {
  const book = await rest.getOrderBook({ category, symbol, limit: '5' });
  const bestBid = Number(book.data.b[0][0]);
  assert.ok(bestBid > 0, `best bid ${bestBid}`);
  return (bestBid * 0.9).toFixed(decimals);
}

function waitForEvent(ws, pred, what) {
  return within(
    10000,
    new Promise((resolve) => {
      const handler = (ev) => {
        if (pred(ev)) {
          ws.off('response', handler);
          ws.off('authenticated', handler);
          resolve(ev);
        }
      };
      ws.on('response', handler);
      ws.on('authenticated', handler);
    }),
    what,
  );
}

async function main() {
  const rest = new RestClientV3({ ...creds, baseUrl: REST_URL });
  const stamp = Date.now().toString(36);

  // ---- REST V3 -------------------------------------------------------------------------
  let restOrderId;
  const restClientOid = `nodeRest${stamp}`;
  let price;
  await check('REST getServerTime (public/time)', async () => {
    const res = await rest.getServerTime();
    assert.equal(res.code, '00000');
    assert.ok(Math.abs(Number(res.data.serverTime) - Date.now()) < 60000);
  });
  await check('REST getInstruments USDT-FUTURES', async () => {
    const res = await rest.getInstruments({ category: 'USDT-FUTURES' });
    assert.equal(res.code, '00000');
    assert.ok(res.data.some((i) => i.symbol === 'BTCUSDT' && i.category === 'USDT-FUTURES'));
  });
  await check('REST submitNewOrder (place-order) limit buy rests', async () => {
    price = await restingBuyPrice(rest, 'USDT-FUTURES', 'BTCUSDT', 1);
    const res = await rest.submitNewOrder({
      category: 'USDT-FUTURES',
      symbol: 'BTCUSDT',
      side: 'buy',
      orderType: 'limit',
      qty: '0.001',
      price,
      timeInForce: 'gtc',
      clientOid: restClientOid,
    });
    assert.equal(res.code, '00000');
    assert.match(res.data.orderId, /^\d+$/);
    assert.equal(res.data.clientOid, restClientOid);
    restOrderId = res.data.orderId;
  });
  await check('REST getUnfilledOrders lists the order', async () => {
    const res = await rest.getUnfilledOrders({ category: 'USDT-FUTURES', symbol: 'BTCUSDT' });
    assert.equal(res.code, '00000');
    const o = res.data.list.find((x) => x.orderId === restOrderId);
    assert.ok(o, `order ${restOrderId} not in unfilled-orders`);
    assert.equal(o.clientOid, restClientOid);
    assert.equal(o.orderStatus, 'live');
    assert.equal(o.side, 'buy');
    assert.equal(Number(o.price), Number(price));
    assert.equal(Number(o.qty), 0.001);
  });
  await check('REST cancelOrder (cancel-order)', async () => {
    const res = await rest.cancelOrder({ orderId: restOrderId });
    assert.equal(res.code, '00000');
    assert.equal(res.data.orderId, restOrderId);
  });
  await check('REST getUnfilledOrders no longer lists the cancelled order', async () => {
    const res = await rest.getUnfilledOrders({ category: 'USDT-FUTURES' });
    assert.ok(!res.data.list.some((x) => x.orderId === restOrderId));
  });
  await check('REST cancelOrder of the cancelled order is refused with 25204', async () => {
    await assert.rejects(rest.cancelOrder({ orderId: restOrderId }), (e) => {
      assert.equal(e.body && e.body.code, '25204');
      return true;
    });
  });
  await check('REST bad credentials are refused (40006 unknown key)', async () => {
    const bad = new RestClientV3({ ...creds, apiKey: 'no-such-key', baseUrl: REST_URL });
    await assert.rejects(bad.getUnfilledOrders({ category: 'USDT-FUTURES' }), (e) => {
      assert.equal(e.body && e.body.code, '40006');
      return true;
    });
  });

  // ---- WebSocket: login + subscribe to `order` ----------------------------------------
  const ws = new WebsocketClientV3({ ...creds, wsUrl: WS_URL }, quietLogger);
  const pushes = new OrderPushes(ws);
  try {
    await check('WS login (authenticated event) and subscribe to order', async () => {
      const subscribed = waitForEvent(
        ws,
        (ev) => ev.event === 'subscribe' && ev.arg && ev.arg.topic === 'order',
        'subscribe ack',
      );
      const authenticated = waitForEvent(ws, (ev) => ev.event === 'login' && ev.code === 0, 'login');
      ws.subscribe({ topic: 'order', payload: { instType: 'UTA' } }, 'v3Private');
      await authenticated;
      const ack = await subscribed;
      assert.equal(ack.arg.instType, 'UTA');
    });
    await check('WS order push follows a REST place-order (live) and cancel (cancelled)', async () => {
      const clientOid = `nodeWs${stamp}`;
      const res = await rest.submitNewOrder({
        category: 'USDT-FUTURES',
        symbol: 'BTCUSDT',
        side: 'buy',
        orderType: 'limit',
        qty: '0.002',
        price,
        clientOid,
      });
      const live = await pushes.next(
        (o) => o.orderId === res.data.orderId && o.orderStatus === 'live',
        'live push',
      );
      assert.equal(live.clientOid, clientOid);
      assert.equal(live.symbol, 'BTCUSDT');
      await rest.cancelOrder({ orderId: res.data.orderId });
      const cancelled = await pushes.next(
        (o) => o.orderId === res.data.orderId && o.orderStatus === 'cancelled',
        'cancelled push',
      );
      assert.equal(cancelled.cancelReason, 'normal_cancel');
    });

    // ---- WebSocket API: place-order, batch-place, cancel-order ------------------------
    const api = new WebsocketAPIClient({ ...creds, wsUrl: WS_URL, attachEventListeners: false }, quietLogger);
    const apiPushes = new OrderPushes(api.getWSClient());
    try {
      let wsOrderId;
      await check('WS API submitNewOrder (place-order) + live push', async () => {
        // The pushes come to the subscribed connection of the same account.
        const clientOid = `nodeApi${stamp}`;
        const res = await within(
          10000,
          api.submitNewOrder('usdt-futures', {
            symbol: 'BTCUSDT',
            orderType: 'limit',
            qty: '0.003',
            price,
            side: 'buy',
            timeInForce: 'gtc',
            clientOid,
          }),
          'place-order reply',
        );
        assert.equal(res.event, 'trade');
        assert.equal(res.code, '0');
        assert.equal(res.topic, 'place-order');
        assert.equal(res.args[0].clientOid, clientOid);
        wsOrderId = res.args[0].orderId;
        assert.match(wsOrderId, /^\d+$/);
        const live = await pushes.next((o) => o.orderId === wsOrderId && o.orderStatus === 'live', 'live push');
        assert.equal(Number(live.qty), 0.003);
      });
      await check('WS API cancelOrder (cancel-order) + cancelled push', async () => {
        const res = await within(10000, api.cancelOrder('usdt-futures', { orderId: wsOrderId }), 'cancel reply');
        assert.equal(res.code, '0');
        assert.equal(res.topic, 'cancel-order');
        assert.equal(res.args[0].orderId, wsOrderId);
        const c = await pushes.next((o) => o.orderId === wsOrderId && o.orderStatus === 'cancelled', 'cancelled push');
        assert.equal(c.cancelReason, 'normal_cancel');
      });
      await check('WS API placeBatchOrders (batch-place) + one live push per order', async () => {
        const items = [1, 2].map((n) => ({
          symbol: 'BTCUSDT',
          orderType: 'limit',
          qty: '0.001',
          price,
          side: 'buy',
          timeInForce: 'gtc',
          clientOid: `nodeBatch${n}${stamp}`,
        }));
        const res = await within(10000, api.placeBatchOrders('usdt-futures', items), 'batch-place reply');
        assert.equal(res.code, '0');
        assert.equal(res.topic, 'batch-place');
        assert.equal(res.args.length, 2);
        for (const [i, item] of res.args.entries()) {
          assert.equal(item.clientOid, items[i].clientOid);
          assert.match(item.orderId, /^\d+$/);
          await pushes.next((o) => o.orderId === item.orderId && o.orderStatus === 'live', `live push ${i}`);
        }
        for (const item of res.args) {
          const c = await within(10000, api.cancelOrder('usdt-futures', { orderId: item.orderId }), 'cancel reply');
          assert.equal(c.code, '0');
          await pushes.next((o) => o.orderId === item.orderId && o.orderStatus === 'cancelled', 'cancelled push');
        }
      });
      await check('WS API crossing place-order is pushed filled with fill price and fee', async () => {
        const book = await rest.getOrderBook({ category: 'USDT-FUTURES', symbol: 'BTCUSDT', limit: '5' });
        const bestAsk = Number(book.data.a[0][0]);
        const res = await within(
          10000,
          api.submitNewOrder('usdt-futures', {
            symbol: 'BTCUSDT',
            orderType: 'limit',
            qty: '0.001',
            // 1 % over the best ask: crosses, and stays inside the venue's 5 % price band
            // (25206 above it, as on Bitget).
            price: (bestAsk * 1.01).toFixed(1),
            side: 'buy',
            timeInForce: 'ioc',
            clientOid: `nodeFill${stamp}`,
          }),
          'place-order reply',
        );
        const id = res.args[0].orderId;
        const filled = await pushes.next((o) => o.orderId === id && o.orderStatus === 'filled', 'filled push');
        assert.equal(Number(filled.cumExecQty), 0.001);
        assert.ok(Number(filled.avgPrice) > 0 && Number(filled.avgPrice) <= bestAsk * 1.01, filled.avgPrice);
        assert.ok(Array.isArray(filled.feeDetail) && filled.feeDetail.length > 0, JSON.stringify(filled));
      });
      await check('WS API error reply rejects the promise with the venue code (25204)', async () => {
        await assert.rejects(
          within(10000, api.cancelOrder('usdt-futures', { orderId: '1' }), 'error reply'),
          (e) => {
            assert.equal(e.event, 'error');
            assert.equal(e.code, '25204');
            return true;
          },
        );
      });
      await check('WS API connection gets its own order pushes after subscribing', async () => {
        const apiWs = api.getWSClient();
        const subscribed = waitForEvent(
          apiWs,
          (ev) => ev.event === 'subscribe' && ev.arg && ev.arg.topic === 'order',
          'subscribe ack',
        );
        apiWs.subscribe({ topic: 'order', payload: { instType: 'UTA' } }, 'v3Private');
        await subscribed;
        const res = await within(
          10000,
          api.submitNewOrder('usdt-futures', {
            symbol: 'BTCUSDT',
            orderType: 'limit',
            qty: '0.001',
            price,
            side: 'buy',
            clientOid: `nodeOwn${stamp}`,
          }),
          'place-order reply',
        );
        const id = res.args[0].orderId;
        await apiPushes.next((o) => o.orderId === id && o.orderStatus === 'live', 'live push on API connection');
        await within(10000, api.cancelOrder('usdt-futures', { orderId: id }), 'cancel reply');
        await apiPushes.next((o) => o.orderId === id && o.orderStatus === 'cancelled', 'cancelled push on API connection');
      });
    } finally {
      api.getWSClient().closeAll(true);
    }
  } finally {
    ws.closeAll(true);
  }

  console.log(`bitget-api: ${passed} passed, ${failed} failed`);
  process.exit(failed === 0 && passed > 0 ? 0 : 1);
}

main().catch((e) => {
  console.log(`FAIL unexpected: ${e && e.stack ? e.stack : safeJson(e)}`);
  console.log(`bitget-api: ${passed} passed, ${failed + 1} failed`);
  process.exit(1);
});
