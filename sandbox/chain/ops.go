package chain

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/contracts"
)

// receiptPoll is how often a sent transaction's receipt is looked for.
const receiptPoll = 20 * time.Millisecond

// maxUint256 is the "infinite" ERC20 allowance.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// Market is a prepared binary market.
type Market struct {
	ConditionID [32]byte
	// TokenIDs are the outcome token (CTF position) ids: [0] YES (index
	// set 1), [1] NO (index set 2).
	TokenIDs [2]*big.Int
	// QuestionID and NegRisk echo the PrepareMarket arguments.
	QuestionID [32]byte
	NegRisk    bool
}

// Side is an order side as the V2 exchange encodes it.
type Side uint8

// Order sides.
const (
	Buy  Side = 0
	Sell Side = 1
)

// Fill is one order's part in a match, in 6-decimal base units with the
// order's own orientation: for a BUY, MakerAmount is collateral paid and
// TakerAmount tokens received; for a SELL the reverse. Fee (may be nil = 0)
// is charged in the asset the order's maker receives.
type Fill struct {
	OrderHash   [32]byte
	Maker       common.Address // the order's maker (funder), not the signer
	Side        Side
	TokenID     *big.Int
	MakerAmount *big.Int
	TakerAmount *big.Int
	Fee         *big.Int
	Builder     [32]byte
	Metadata    [32]byte
}

// Match is a taker order filled against one or more maker orders of the
// opposite side on the same token. The amounts must balance exactly: the sum
// of the makers' MakerAmount is the taker's TakerAmount and the sum of their
// TakerAmount is the taker's MakerAmount.
type Match struct {
	Taker  Fill
	Makers []Fill
}

// FundsError is the cause carried by Settle's error when a party lacks
// balance or allowance on chain. Retrieve it with errors.As.
type FundsError struct {
	Account common.Address
	// TokenID is 0 for collateral, else the outcome token id.
	TokenID *big.Int
	// Allowance is true when the approval/allowance is missing, false when
	// the balance is short.
	Allowance bool
	Have      *big.Int
	Need      *big.Int
}

func (e *FundsError) Error() string {
	asset := "collateral"
	if e.TokenID != nil && e.TokenID.Sign() != 0 {
		asset = "token " + e.TokenID.String()
	}
	what := "balance"
	if e.Allowance {
		what = "allowance"
	}
	return fmt.Sprintf("%s has %s %s of %s, needs %s", e.Account.Hex(), what, e.Have, asset, e.Need)
}

// Error codes of the errors this package returns (venue.Error.Code).
const (
	CodeInsufficientBalance   = "insufficient_balance"
	CodeInsufficientAllowance = "insufficient_allowance"
	CodeReverted              = "reverted"
)

// maxTxGas is the most gas one transaction may take (EIP-7825).
const maxTxGas = 1 << 24

// address returns the address of a key.
func address(k *ecdsa.PrivateKey) common.Address { return crypto.PubkeyToAddress(k.PublicKey) }

// sender serialises one account's transactions and remembers its next
// nonce: the transaction pool promotes new transactions asynchronously, so
// its pending nonce can lag behind a transaction just sent.
type sender struct {
	mu        sync.Mutex
	nextNonce uint64
}

func (c *Chain) sender(a common.Address) *sender {
	c.sendMu.Lock()
	defer c.sendMu.Unlock()
	s, ok := c.senders[a]
	if !ok {
		s = &sender{}
		c.senders[a] = s
	}
	return s
}

// send signs and submits one transaction from key (built by fn from the
// options) and returns it without waiting. Transactions of one sender are
// serialised so nonces stay consecutive. A call that would revert fails here,
// during gas estimation, with the decoded revert reason.
func (c *Chain) send(ctx context.Context, key *ecdsa.PrivateKey, value *big.Int, fn func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Transaction, error) {
	from := address(key)
	s := c.sender(from)
	s.mu.Lock()
	defer s.mu.Unlock()
	opts, err := bind.NewKeyedTransactorWithChainID(key, big.NewInt(c.net.ChainID))
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "sandbox transactor")
	}
	opts.Context = ctx
	opts.Value = value
	nonce, err := c.client.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, venue.Wrap(venue.Unavailable, err, "sandbox chain nonce")
	}
	nonce = max(nonce, s.nextNonce)
	opts.Nonce = new(big.Int).SetUint64(nonce)
	// First pass: estimate (this is where reverts surface) and sign without
	// sending. The estimate runs on the latest block, which may lack this
	// sender's earlier pending transactions and whatever other senders get
	// mined first. Those can change what the call costs: a write that
	// creates state (a balance going from zero, e.g. the CTF's collateral
	// once every market it held was redeemed) costs ~100k gas more than
	// one that updates it, a third more for a split. Gas is free on the
	// sandbox chain, so the real send gets twice the estimate.
	opts.NoSend = true
	tx, err := fn(opts)
	if err != nil {
		return nil, classifyTxError(err)
	}
	opts.NoSend = false
	opts.GasLimit = min(2*tx.Gas(), maxTxGas)
	tx, err = fn(opts)
	if err != nil {
		return nil, classifyTxError(err)
	}
	s.nextNonce = nonce + 1
	return tx, nil
}

// transact sends a transaction and waits for it to be mined (sealing a block
// itself in manual mode); a reverted receipt is an error.
func (c *Chain) transact(ctx context.Context, key *ecdsa.PrivateKey, value *big.Int, fn func(*bind.TransactOpts) (*types.Transaction, error)) (*types.Receipt, error) {
	tx, err := c.send(ctx, key, value, fn)
	if err != nil {
		return nil, err
	}
	return c.WaitMined(ctx, tx.Hash())
}

// WaitMined waits for a transaction's receipt. In manual mode
// (BlockInterval 0) it seals a block first. A reverted transaction yields a
// Rejected error with code "reverted".
func (c *Chain) WaitMined(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	if !c.sealing.Load() {
		c.Commit()
	}
	t := time.NewTicker(receiptPoll)
	defer t.Stop()
	for {
		r, err := c.client.TransactionReceipt(ctx, hash)
		if err == nil {
			// The receipt is visible as soon as the block is inserted, but
			// the txpool only validates against the new state once Commit
			// has synced it; Commit holds commitMu throughout, so passing
			// through the lock means the sealing commit is complete and the
			// next sender sees this transaction's effects.
			c.sealed()
			if r.Status != types.ReceiptStatusSuccessful {
				return r, venue.Ef(venue.Rejected, "transaction %s reverted", hash.Hex()).WithCode(CodeReverted)
			}
			return r, nil
		}
		if !receiptPending(err) {
			return nil, venue.Wrap(venue.Unavailable, err, "sandbox chain receipt")
		}
		if !c.sealing.Load() {
			// No block loop yet: a transaction that reached the pool
			// after the last seal needs another block.
			c.Commit()
		}
		select {
		case <-ctx.Done():
			return nil, venue.Wrap(venue.Unavailable, ctx.Err(), "waiting for sandbox transaction")
		case <-t.C:
		}
	}
}

// receiptPending reports whether a receipt lookup failed only because the
// receipt is not there yet. Besides "not found", geth answers "transaction
// indexing is in progress" (an internal error type, so matched by text)
// while its transaction indexer catches up, e.g. right after start.
func receiptPending(err error) bool {
	return errors.Is(err, ethereum.NotFound) || strings.Contains(err.Error(), "transaction indexing is in progress")
}

// knownErrors are the custom errors of all sandbox contracts, by selector.
var knownErrors = func() map[[4]byte]abi.Error {
	out := map[[4]byte]abi.Error{}
	metas := []*bind.MetaData{
		contracts.CollateralMetaData, contracts.ConditionalTokensMetaData, contracts.ExchangeMetaData,
		contracts.NegRiskAdapterMetaData, contracts.ProxyWalletMetaData, contracts.ProxyWalletFactoryMetaData,
		contracts.SafeMetaData, contracts.SafeFactoryMetaData, contracts.DepositWalletMetaData,
		contracts.DepositWalletFactoryMetaData,
	}
	for _, m := range metas {
		parsed, err := m.GetAbi()
		if err != nil {
			panic(fmt.Sprintf("sandbox contract ABI: %v", err))
		}
		for _, e := range parsed.Errors {
			var sel [4]byte
			copy(sel[:], e.ID[:4])
			out[sel] = e
		}
	}
	return out
}()

// revertData extracts the revert payload of a failed call, if any.
func revertData(err error) []byte {
	var de rpc.DataError
	if !errors.As(err, &de) {
		return nil
	}
	switch d := de.ErrorData().(type) {
	case string:
		b, derr := hexutil.Decode(d)
		if derr == nil {
			return b
		}
	case []byte:
		return d
	}
	return nil
}

// classifyTxError turns a failed estimate/send into a venue error, decoding
// the contracts' custom errors (FundsError for balance/allowance shortfalls).
func classifyTxError(err error) error {
	data := revertData(err)
	if len(data) >= 4 {
		var sel [4]byte
		copy(sel[:], data[:4])
		if e, ok := knownErrors[sel]; ok {
			vals, uerr := e.Inputs.Unpack(data[4:])
			if uerr == nil {
				if fe := fundsError(e.Name, vals); fe != nil {
					code := CodeInsufficientBalance
					if fe.Allowance {
						code = CodeInsufficientAllowance
					}
					return venue.E(venue.Rejected, "not enough balance / allowance").WithCode(code).WithCause(fe)
				}
				return venue.Ef(venue.Rejected, "sandbox chain rejected the transaction: %s", describe(e.Name, vals)).
					WithCode(CodeReverted).WithCause(err)
			}
		}
		if reason, uerr := abi.UnpackRevert(data); uerr == nil {
			return venue.Ef(venue.Rejected, "sandbox chain rejected the transaction: %s", reason).
				WithCode(CodeReverted).WithCause(err)
		}
	}
	if strings.Contains(err.Error(), "execution reverted") {
		return venue.E(venue.Rejected, "sandbox chain rejected the transaction").WithCode(CodeReverted).WithCause(err)
	}
	return venue.Wrap(venue.Unavailable, err, "sandbox chain transaction failed")
}

func describe(name string, vals []any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case common.Address:
			parts[i] = x.Hex()
		default:
			parts[i] = fmt.Sprint(x)
		}
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// fundsError maps the exchange's and collateral's shortfall errors.
func fundsError(name string, vals []any) *FundsError {
	big0 := func(v any) *big.Int {
		if b, ok := v.(*big.Int); ok {
			return b
		}
		return new(big.Int)
	}
	switch {
	// Exchange: InsufficientBalance/InsufficientAllowance(address,uint256 tokenId,uint256 have,uint256 need)
	case (name == "InsufficientBalance" || name == "InsufficientAllowance") && len(vals) == 4:
		if _, ok := vals[0].(common.Address); !ok {
			return nil
		}
		// Collateral's InsufficientAllowance(owner, spender, allowance, needed) has the same arity.
		if _, isAddr := vals[1].(common.Address); isAddr {
			return &FundsError{Account: vals[0].(common.Address), TokenID: new(big.Int), Allowance: true, Have: big0(vals[2]), Need: big0(vals[3])}
		}
		return &FundsError{
			Account:   vals[0].(common.Address),
			TokenID:   big0(vals[1]),
			Allowance: name == "InsufficientAllowance",
			Have:      big0(vals[2]),
			Need:      big0(vals[3]),
		}
	// Collateral: InsufficientBalance(address account,uint256 balance,uint256 needed)
	case name == "InsufficientBalance" && len(vals) == 3:
		a, ok := vals[0].(common.Address)
		if !ok {
			return nil
		}
		return &FundsError{Account: a, TokenID: new(big.Int), Have: big0(vals[1]), Need: big0(vals[2])}
	}
	return nil
}

// bootstrap mints the market maker's and outside wallets' collateral and
// sets their trading approvals, all mined in block 1.
func (c *Chain) bootstrap(ctx context.Context) error {
	coll, err := contracts.NewCollateral(c.net.Collateral, c.client)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "bind collateral")
	}
	type grant struct {
		key    *ecdsa.PrivateKey
		amount *big.Int
	}
	grants := []grant{{c.marketMaker, MarketMakerCollateral}}
	for _, k := range c.outside {
		grants = append(grants, grant{k, OutsideWalletCollateral})
	}
	var txs []*types.Transaction
	for _, g := range grants {
		tx, err := c.send(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return coll.Mint(o, address(g.key), g.amount)
		})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
		more, err := c.approveAll(ctx, g.key)
		if err != nil {
			return err
		}
		txs = append(txs, more...)
	}
	c.Commit()
	for _, tx := range txs {
		if _, err := c.WaitMined(ctx, tx.Hash()); err != nil {
			return err
		}
	}
	return nil
}

// approveAll sends key's collateral approvals and CTF operator approvals for
// both exchanges and the neg-risk adapter (the venue's required approvals).
func (c *Chain) approveAll(ctx context.Context, key *ecdsa.PrivateKey) ([]*types.Transaction, error) {
	coll, err := contracts.NewCollateral(c.net.Collateral, c.client)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "bind collateral")
	}
	ctf, err := contracts.NewConditionalTokens(c.net.ConditionalTokens, c.client)
	if err != nil {
		return nil, venue.Wrap(venue.Internal, err, "bind conditional tokens")
	}
	var txs []*types.Transaction
	for _, spender := range []common.Address{c.net.Exchange, c.net.NegRiskExchange, c.net.NegRiskAdapter, c.net.ConditionalTokens} {
		tx, err := c.send(ctx, key, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return coll.Approve(o, spender, maxUint256)
		})
		if err != nil {
			return nil, err
		}
		txs = append(txs, tx)
		if spender == c.net.ConditionalTokens {
			continue
		}
		tx, err = c.send(ctx, key, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return ctf.SetApprovalForAll(o, spender, true)
		})
		if err != nil {
			return nil, err
		}
		txs = append(txs, tx)
	}
	return txs, nil
}

// Fund mints collateralMicro pUSD base units to addr and sends it nativeWei
// of gas currency; either may be nil or zero.
func (c *Chain) Fund(ctx context.Context, addr common.Address, collateralMicro *big.Int, nativeWei *big.Int) error {
	if addr == (common.Address{}) {
		return venue.E(venue.Invalid, "cannot fund the zero address")
	}
	if (collateralMicro != nil && collateralMicro.Sign() < 0) || (nativeWei != nil && nativeWei.Sign() < 0) {
		return venue.E(venue.Invalid, "funding amounts must not be negative")
	}
	var txs []*types.Transaction
	if collateralMicro != nil && collateralMicro.Sign() > 0 {
		coll, err := contracts.NewCollateral(c.net.Collateral, c.client)
		if err != nil {
			return venue.Wrap(venue.Internal, err, "bind collateral")
		}
		tx, err := c.send(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return coll.Mint(o, addr, collateralMicro)
		})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
	}
	if nativeWei != nil && nativeWei.Sign() > 0 {
		tx, err := c.send(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return c.sendValue(o, addr, nativeWei)
		})
		if err != nil {
			return err
		}
		txs = append(txs, tx)
	}
	for _, tx := range txs {
		if _, err := c.WaitMined(ctx, tx.Hash()); err != nil {
			return err
		}
	}
	return nil
}

// sendValue builds, signs and sends a plain value transfer.
func (c *Chain) sendValue(o *bind.TransactOpts, to common.Address, wei *big.Int) (*types.Transaction, error) {
	head, err := c.client.HeaderByNumber(o.Context, nil)
	if err != nil {
		return nil, err
	}
	tip, err := c.client.SuggestGasTipCap(o.Context)
	if err != nil {
		return nil, err
	}
	feeCap := new(big.Int).Add(tip, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID:   big.NewInt(c.net.ChainID),
		Nonce:     o.Nonce.Uint64(),
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       21_000,
		To:        &to,
		Value:     wei,
	})
	signed, err := o.Signer(o.From, tx)
	if err != nil || o.NoSend {
		return signed, err
	}
	return signed, c.client.SendTransaction(o.Context, signed)
}

// positionIDs computes the YES/NO token ids of a condition keyed to the
// sandbox collateral (ConditionalTokens.getPositionId/getCollectionId).
func (c *Chain) positionIDs(conditionID [32]byte) [2]*big.Int {
	var ids [2]*big.Int
	for i, indexSet := range []int64{1, 2} {
		collection := crypto.Keccak256(conditionID[:], common.LeftPadBytes(big.NewInt(indexSet).Bytes(), 32))
		ids[i] = new(big.Int).SetBytes(crypto.Keccak256(c.net.Collateral.Bytes(), collection))
	}
	return ids
}

// conditionID is CTF getConditionId(oracle, questionID, 2).
func conditionID(oracle common.Address, questionID [32]byte) [32]byte {
	return crypto.Keccak256Hash(oracle.Bytes(), questionID[:], common.LeftPadBytes([]byte{2}, 32))
}

// PrepareMarket prepares the binary condition of questionID on the CTF. A
// normal market's oracle is the operator; a neg-risk market is prepared
// through (and resolved by) the neg-risk adapter. Preparing the same
// question twice is a Conflict.
func (c *Chain) PrepareMarket(ctx context.Context, questionID [32]byte, negRisk bool) (Market, error) {
	oracle := address(c.operator)
	if negRisk {
		oracle = c.net.NegRiskAdapter
	}
	m := c.MarketFor(questionID, negRisk)
	ctf, err := contracts.NewConditionalTokens(c.net.ConditionalTokens, c.client)
	if err != nil {
		return Market{}, venue.Wrap(venue.Internal, err, "bind conditional tokens")
	}
	slots, err := ctf.GetOutcomeSlotCount(&bind.CallOpts{Context: ctx}, m.ConditionID)
	if err != nil {
		return Market{}, venue.Wrap(venue.Unavailable, err, "read condition")
	}
	if slots.Sign() != 0 {
		return Market{}, venue.E(venue.Conflict, "market already prepared on chain")
	}
	if negRisk {
		adapter, err := contracts.NewNegRiskAdapter(c.net.NegRiskAdapter, c.client)
		if err != nil {
			return Market{}, venue.Wrap(venue.Internal, err, "bind neg-risk adapter")
		}
		_, err = c.transact(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return adapter.PrepareCondition(o, questionID)
		})
		if err != nil {
			return Market{}, err
		}
	} else {
		_, err = c.transact(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return ctf.PrepareCondition(o, oracle, questionID, big.NewInt(2))
		})
		if err != nil {
			return Market{}, err
		}
	}
	c.marketsMu.Lock()
	c.markets[m.ConditionID] = marketInfo{questionID: questionID, negRisk: negRisk}
	c.marketsMu.Unlock()
	return m, nil
}

// Resolve reports the payouts of a market prepared by PrepareMarket: the
// outcome at winnerIndex (0 = YES, 1 = NO) pays 1 per share, the other 0.
func (c *Chain) Resolve(ctx context.Context, conditionID [32]byte, winnerIndex int) error {
	if winnerIndex != 0 && winnerIndex != 1 {
		return venue.E(venue.Invalid, "winner index must be 0 (YES) or 1 (NO)")
	}
	info, err := c.preparedMarket(ctx, conditionID)
	if err != nil {
		return err
	}
	ctf, err := contracts.NewConditionalTokens(c.net.ConditionalTokens, c.client)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "bind conditional tokens")
	}
	den, err := ctf.PayoutDenominator(&bind.CallOpts{Context: ctx}, conditionID)
	if err != nil {
		return venue.Wrap(venue.Unavailable, err, "read condition")
	}
	if den.Sign() != 0 {
		return venue.E(venue.Conflict, "market already resolved")
	}
	if info.negRisk {
		adapter, err := contracts.NewNegRiskAdapter(c.net.NegRiskAdapter, c.client)
		if err != nil {
			return venue.Wrap(venue.Internal, err, "bind neg-risk adapter")
		}
		_, err = c.transact(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return adapter.ReportOutcome(o, info.questionID, winnerIndex == 0)
		})
		return err
	}
	payouts := []*big.Int{big.NewInt(0), big.NewInt(0)}
	payouts[winnerIndex] = big.NewInt(1)
	_, err = c.transact(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return ctf.ReportPayouts(o, info.questionID, payouts)
	})
	return err
}

// SplitTo gives key's wallet amountMicro of both outcome tokens of a
// condition by splitting collateral on the CTF. Collateral the wallet lacks
// is minted to it first, and the CTF collateral allowance is raised if
// needed; the wallet pays the gas (fund it first if it is not genesis-funded).
func (c *Chain) SplitTo(ctx context.Context, key *ecdsa.PrivateKey, conditionID [32]byte, amountMicro *big.Int) error {
	if key == nil || amountMicro == nil || amountMicro.Sign() <= 0 {
		return venue.E(venue.Invalid, "split needs a wallet key and a positive amount")
	}
	owner := address(key)
	coll, err := contracts.NewCollateral(c.net.Collateral, c.client)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "bind collateral")
	}
	ctf, err := contracts.NewConditionalTokens(c.net.ConditionalTokens, c.client)
	if err != nil {
		return venue.Wrap(venue.Internal, err, "bind conditional tokens")
	}
	call := &bind.CallOpts{Context: ctx}
	bal, err := coll.BalanceOf(call, owner)
	if err != nil {
		return venue.Wrap(venue.Unavailable, err, "read collateral balance")
	}
	if bal.Cmp(amountMicro) < 0 {
		if err := c.Fund(ctx, owner, new(big.Int).Sub(amountMicro, bal), nil); err != nil {
			return err
		}
	}
	allowed, err := coll.Allowance(call, owner, c.net.ConditionalTokens)
	if err != nil {
		return venue.Wrap(venue.Unavailable, err, "read collateral allowance")
	}
	if allowed.Cmp(amountMicro) < 0 {
		if _, err := c.transact(ctx, key, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
			return coll.Approve(o, c.net.ConditionalTokens, maxUint256)
		}); err != nil {
			return err
		}
	}
	_, err = c.transact(ctx, key, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return ctf.SplitPosition(o, c.net.Collateral, [32]byte{}, conditionID, []*big.Int{big.NewInt(1), big.NewInt(2)}, amountMicro)
	})
	return err
}

func (f Fill) binding() contracts.ExchangeFill {
	fee := f.Fee
	if fee == nil {
		fee = new(big.Int)
	}
	return contracts.ExchangeFill{
		OrderHash:   f.OrderHash,
		Maker:       f.Maker,
		Side:        uint8(f.Side),
		TokenId:     f.TokenID,
		MakerAmount: f.MakerAmount,
		TakerAmount: f.TakerAmount,
		Fee:         fee,
		Builder:     f.Builder,
		Metadata:    f.Metadata,
	}
}

func (f Fill) validate() error {
	if f.Maker == (common.Address{}) {
		return venue.E(venue.Invalid, "fill has no maker")
	}
	if f.Side != Buy && f.Side != Sell {
		return venue.E(venue.Invalid, "fill side must be BUY or SELL")
	}
	for _, v := range []*big.Int{f.TokenID, f.MakerAmount, f.TakerAmount} {
		if v == nil || v.Sign() <= 0 {
			return venue.E(venue.Invalid, "fill token id and amounts must be positive")
		}
	}
	if f.Fee != nil && f.Fee.Sign() < 0 {
		return venue.E(venue.Invalid, "fill fee must not be negative")
	}
	return nil
}

// Settle settles a match on the exchange for the market kind (negRisk picks
// the neg-risk exchange) and waits until it is mined. A party lacking
// balance or allowance yields a Rejected error with code
// insufficient_balance or insufficient_allowance whose cause is a
// *FundsError naming the account; nothing moves in that case.
func (c *Chain) Settle(ctx context.Context, negRisk bool, m Match) (common.Hash, error) {
	if err := m.Taker.validate(); err != nil {
		return common.Hash{}, err
	}
	if len(m.Makers) == 0 {
		return common.Hash{}, venue.E(venue.Invalid, "a match needs at least one maker order")
	}
	makers := make([]contracts.ExchangeFill, len(m.Makers))
	for i, f := range m.Makers {
		if err := f.validate(); err != nil {
			return common.Hash{}, err
		}
		makers[i] = f.binding()
	}
	ex, err := contracts.NewExchange(c.net.ExchangeFor(negRisk), c.client)
	if err != nil {
		return common.Hash{}, venue.Wrap(venue.Internal, err, "bind exchange")
	}
	tx, err := c.send(ctx, c.operator, nil, func(o *bind.TransactOpts) (*types.Transaction, error) {
		return ex.MatchOrders(o, m.Taker.binding(), makers)
	})
	if err != nil {
		return common.Hash{}, err
	}
	rcpt, err := c.WaitMined(ctx, tx.Hash())
	if err != nil && rcpt != nil {
		// Mined but reverted (the state changed after estimation): replay
		// the call on the block's state to name the party that fell short.
		return tx.Hash(), c.explainRevert(ctx, tx, rcpt, err)
	}
	return tx.Hash(), err
}

// explainRevert re-executes a reverted operator transaction against the
// state of the block it was mined in and returns the decoded reason, or
// fallback when the call now succeeds or cannot be replayed.
func (c *Chain) explainRevert(ctx context.Context, tx *types.Transaction, rcpt *types.Receipt, fallback error) error {
	_, err := c.client.CallContract(ctx, ethereum.CallMsg{
		From:  address(c.operator),
		To:    tx.To(),
		Gas:   tx.Gas(),
		Value: tx.Value(),
		Data:  tx.Data(),
	}, rcpt.BlockNumber)
	if err == nil {
		return fallback
	}
	if classified := classifyTxError(err); venue.CodeOf(classified) != "" {
		return classified
	}
	return fallback
}
