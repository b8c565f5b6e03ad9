// Drives the official @polymarket/clob-client-v2, unchanged, against a
// running sandbox: create/derive API credentials (derive refuses a key that
// does not exist; createOrDeriveApiKey falls back to derive when the key
// exists), read a book, post a resting limit order, find it among open
// orders, cancel it, post a batch of orders (POST /orders) and cancel them
// by asset and by market (DELETE /cancel-market-orders), then post a
// marketable FOK order that fills. Prints one JSON line of results; exits 1
// on failure.
//
// usage: node compat.mjs <clob host> <private key hex> <token id> <condition id>
import { ClobClient, Side, OrderType } from "@polymarket/clob-client-v2";
import { Wallet } from "@ethersproject/wallet";

const [host, privateKey, tokenID, conditionID] = process.argv.slice(2);
if (!host || !privateKey || !tokenID || !conditionID) {
  console.error("usage: node compat.mjs <clob host> <private key> <token id> <condition id>");
  process.exit(2);
}
const chain = 80002;
const signer = new Wallet(privateKey);
const fail = (step, detail) => {
  console.error(JSON.stringify({ failed: step, detail }));
  process.exit(1);
};

const l1 = new ClobClient({ host, chain, signer, throwOnError: true });
const creds = await l1.createOrDeriveApiKey();
if (!creds?.key || !creds?.secret || !creds?.passphrase) fail("createOrDeriveApiKey", creds);
const again = await l1.deriveApiKey();
if (again.key !== creds.key) fail("deriveApiKey does not return the created key", { first: creds.key, second: again.key });

// A wallet that has no key yet: derive is refused, as on the live venue;
// createOrDeriveApiKey creates it, and once it exists falls back to derive.
const fresh = Wallet.createRandom();
let deriveRefused = "";
try {
  const got = await new ClobClient({ host, chain, signer: fresh, throwOnError: true }).deriveApiKey();
  fail("deriveApiKey of a wallet without a key", got);
} catch (e) {
  if (e?.status !== 400) fail("deriveApiKey refusal status", { status: e?.status, message: e?.message });
  deriveRefused = e.message;
}
const lax = new ClobClient({ host, chain, signer: fresh });
const freshCreds = await lax.createOrDeriveApiKey();
if (!freshCreds?.key) fail("createOrDeriveApiKey of a new wallet", freshCreds);
const freshAgain = await lax.createOrDeriveApiKey();
if (freshAgain?.key !== freshCreds.key) fail("createOrDeriveApiKey of an existing key", { first: freshCreds, second: freshAgain });

const client = new ClobClient({ host, chain, signer, creds, throwOnError: true });
const book = await client.getOrderBook(tokenID);
if (!Array.isArray(book?.bids) || !Array.isArray(book?.asks) || book.asks.length === 0) fail("getOrderBook", book);
const tickSize = await client.getTickSize(tokenID);

// A bid far below the best bid rests on the book.
const resting = await client.createAndPostOrder(
  { tokenID, price: Number(tickSize) * 2, size: 10, side: Side.BUY },
  {},
  OrderType.GTC,
);
if (!resting?.success || !resting.orderID || resting.status !== "live") fail("post resting order", resting);

const open = await client.getOpenOrders({ asset_id: tokenID });
const openList = Array.isArray(open) ? open : open?.data ?? [];
if (!openList.some((o) => o.id === resting.orderID)) fail("resting order not among open orders", open);

const cancelled = await client.cancelOrder({ orderID: resting.orderID });
if (!cancelled?.canceled?.includes(resting.orderID)) fail("cancelOrder", cancelled);
const afterCancel = await client.getOpenOrders({ asset_id: tokenID });
const afterList = Array.isArray(afterCancel) ? afterCancel : afterCancel?.data ?? [];
if (afterList.some((o) => o.id === resting.orderID)) fail("order still open after cancel", afterCancel);

// A batch (POST /orders): two resting bids and one below the minimum size,
// answered one by one.
const batch = await client.postOrders([
  { order: await client.createOrder({ tokenID, price: Number(tickSize) * 2, size: 10, side: Side.BUY }), orderType: OrderType.GTC },
  { order: await client.createOrder({ tokenID, price: Number(tickSize) * 3, size: 10, side: Side.BUY }), orderType: OrderType.GTC },
  { order: await client.createOrder({ tokenID, price: Number(tickSize) * 3, size: 1, side: Side.BUY }), orderType: OrderType.GTC },
]);
if (!Array.isArray(batch) || batch.length !== 3) fail("postOrders", batch);
if (!batch[0].success || batch[0].status !== "live" || !batch[1].success || batch[1].status !== "live") fail("postOrders resting orders", batch);
if (batch[2].success || !batch[2].errorMsg) fail("postOrders refused order", batch);
const batchIDs = [batch[0].orderID, batch[1].orderID];

// Cancel by asset, then (after one more order) by market.
const byAsset = await client.cancelMarketOrders({ asset_id: tokenID });
if (!batchIDs.every((id) => byAsset?.canceled?.includes(id))) fail("cancelMarketOrders by asset", byAsset);
const one = await client.createAndPostOrder({ tokenID, price: Number(tickSize) * 2, size: 10, side: Side.BUY }, {}, OrderType.GTC);
if (!one?.success) fail("post before cancel by market", one);
const byMarket = await client.cancelMarketOrders({ market: conditionID });
if (!byMarket?.canceled?.includes(one.orderID)) fail("cancelMarketOrders by market", byMarket);
const afterBatch = await client.getOpenOrders({ asset_id: tokenID });
const afterBatchList = Array.isArray(afterBatch) ? afterBatch : afterBatch?.data ?? [];
if (afterBatchList.length !== 0) fail("orders still open after cancelMarketOrders", afterBatch);

// A marketable FOK buy for 5 collateral units fills against the asks.
const market = await client.createAndPostMarketOrder({ tokenID, amount: 5, side: Side.BUY }, {}, OrderType.FOK);
if (!market?.success || market.status !== "matched") fail("marketable FOK order", market);

console.log(
  JSON.stringify({
    apiKey: creds.key,
    deriveRefused,
    batch: batch.map((r) => ({ success: r.success, status: r.status, orderID: r.orderID, errorMsg: r.errorMsg })),
    cancelledByAsset: byAsset.canceled,
    cancelledByMarket: byMarket.canceled,
    bestAsk: book.asks[book.asks.length - 1]?.price,
    tickSize,
    restingOrderID: resting.orderID,
    cancelled: cancelled.canceled,
    marketOrderID: market.orderID,
    marketStatus: market.status,
    makingAmount: market.makingAmount,
    takingAmount: market.takingAmount,
  }),
);
