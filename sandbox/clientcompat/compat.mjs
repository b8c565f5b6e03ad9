// Drives the official @polymarket/clob-client-v2, unchanged, against a
// running sandbox: create/derive API credentials, read a book, post a resting
// limit order, find it among open orders, cancel it, then post a marketable
// FOK order that fills. Prints one JSON line of results; exits 1 on failure.
//
// usage: node compat.mjs <clob host> <private key hex> <token id>
import { ClobClient, Side, OrderType } from "@polymarket/clob-client-v2";
import { Wallet } from "@ethersproject/wallet";

const [host, privateKey, tokenID] = process.argv.slice(2);
if (!host || !privateKey || !tokenID) {
  console.error("usage: node compat.mjs <clob host> <private key> <token id>");
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
if (again.key !== creds.key) fail("deriveApiKey is not deterministic", { first: creds.key, second: again.key });

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

// A marketable FOK buy for 5 collateral units fills against the asks.
const market = await client.createAndPostMarketOrder({ tokenID, amount: 5, side: Side.BUY }, {}, OrderType.FOK);
if (!market?.success || market.status !== "matched") fail("marketable FOK order", market);

console.log(
  JSON.stringify({
    apiKey: creds.key,
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
