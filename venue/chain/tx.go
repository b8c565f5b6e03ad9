package chain

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/rpc"

	"github.com/agent-trading/ats/venue"
)

// sender returns the serialization state of one sending EOA.
func (c *Client) sender(a common.Address) *senderState {
	c.mu.Lock()
	defer c.mu.Unlock()
	st, ok := c.nonces[a]
	if !ok {
		st = &senderState{}
		c.nonces[a] = st
	}
	return st
}

// transact sends one EIP-1559 transaction from the signer's EOA and waits
// for it to be mined. The sender's lock is held from nonce selection until
// the node accepted the transaction, never while waiting for the receipt,
// so concurrent calls for one sender queue briefly and get consecutive
// nonces.
func (c *Client) transact(ctx context.Context, s Signer, to common.Address, data []byte) (*types.Receipt, error) {
	tx, err := c.send(ctx, s, to, data)
	if err != nil {
		return nil, err
	}
	return c.waitMined(ctx, s.Address(), tx)
}

func (c *Client) send(ctx context.Context, s Signer, to common.Address, data []byte) (*types.Transaction, error) {
	from := s.Address()
	st := c.sender(from)
	st.mu.Lock()
	defer st.mu.Unlock()

	nonce, err := c.b.PendingNonceAt(ctx, from)
	if err != nil {
		return nil, classifyRPC(err, "read the sender nonce")
	}
	// A node behind a load balancer can answer with a pending nonce that does
	// not yet include our last transaction; never go below what we sent.
	if st.next > nonce {
		nonce = st.next
	}
	msg := ethereum.CallMsg{From: from, To: &to, Data: data}
	gas, err := c.b.EstimateGas(ctx, msg)
	if err != nil {
		return nil, classifyRPC(err, "estimate gas")
	}
	gas += gas * c.opts.GasHeadroomPercent / 100

	tip, err := c.b.SuggestGasTipCap(ctx)
	if err != nil {
		return nil, classifyRPC(err, "read the gas tip")
	}
	head, err := c.b.HeaderByNumber(ctx, nil)
	if err != nil {
		return nil, classifyRPC(err, "read the latest block")
	}
	// Twice the base fee survives six consecutive full blocks of base-fee
	// growth; the unused part is not charged.
	feeCap := new(big.Int).Set(tip)
	if head.BaseFee != nil {
		feeCap.Add(feeCap, new(big.Int).Mul(head.BaseFee, big.NewInt(2)))
	}

	// Checking the gas funds up front turns the node's terse rejection into
	// an answer the user can act on before anything is signed.
	bal, err := c.b.BalanceAt(ctx, from, nil)
	if err != nil {
		return nil, classifyRPC(err, "read the gas balance")
	}
	if need := new(big.Int).Mul(feeCap, new(big.Int).SetUint64(gas)); bal.Cmp(need) < 0 {
		return nil, venue.Ef(venue.Rejected, "not enough gas funds on %s to pay for the transaction", from.Hex()).
			WithCode(CodeInsufficientGas).WithHint("fund the wallet's owner address with the chain's gas token")
	}

	tx := types.NewTx(&types.DynamicFeeTx{
		ChainID:   c.chainID,
		Nonce:     nonce,
		GasTipCap: tip,
		GasFeeCap: feeCap,
		Gas:       gas,
		To:        &to,
		Data:      data,
	})
	signed, err := s.SignTx(ctx, tx, c.chainID)
	if err != nil {
		return nil, err
	}
	if err := c.b.SendTransaction(ctx, signed); err != nil {
		st.next = 0 // resynchronise with the node next time
		return nil, classifyRPC(err, "send the transaction")
	}
	st.next = nonce + 1
	return signed, nil
}

// waitMined polls for the receipt until it appears, the context ends or
// ReceiptTimeout passes. A reverted transaction is replayed at its block to
// recover the revert reason.
func (c *Client) waitMined(ctx context.Context, from common.Address, tx *types.Transaction) (*types.Receipt, error) {
	ctx, cancel := context.WithTimeout(ctx, c.opts.ReceiptTimeout)
	defer cancel()
	t := time.NewTicker(c.opts.ReceiptPoll)
	defer t.Stop()
	for {
		r, err := c.b.TransactionReceipt(ctx, tx.Hash())
		switch {
		case err == nil:
			if r.Status != types.ReceiptStatusSuccessful {
				return r, c.revertError(ctx, from, tx, r)
			}
			return r, nil
		case errors.Is(err, ethereum.NotFound), isIndexing(err):
		case ctx.Err() != nil:
		default:
			if e := classifyRPC(err, "read the receipt"); !venue.Is(e, venue.Unavailable) {
				return nil, e
			}
		}
		select {
		case <-ctx.Done():
			return nil, venue.Ef(venue.Unavailable, "transaction %s was not mined in time", tx.Hash().Hex()).
				WithCode("receipt_timeout").WithCause(ctx.Err())
		case <-t.C:
		}
	}
}

// isIndexing reports geth's "transaction indexing is in progress" answer to
// a receipt lookup (an internal error type, so matched by text): the node is
// still indexing after a restart and the receipt may simply not be visible
// yet, which is no reason to give up on the transaction.
func isIndexing(err error) bool {
	return strings.Contains(err.Error(), "transaction indexing is in progress")
}

func (c *Client) revertError(ctx context.Context, from common.Address, tx *types.Transaction, r *types.Receipt) error {
	msg := fmt.Sprintf("transaction %s reverted", tx.Hash().Hex())
	_, err := c.b.CallContract(ctx, ethereum.CallMsg{From: from, To: tx.To(), Data: tx.Data(), Gas: tx.Gas()}, r.BlockNumber)
	if err != nil {
		if reason := revertReason(err); reason != "" {
			msg += ": " + reason
		}
	}
	return venue.E(venue.Rejected, msg).WithCode(CodeReverted)
}

// revertReason extracts a Solidity revert string from a node error, from the
// error's data when the node sends it and from its message otherwise.
func revertReason(err error) string {
	var de rpc.DataError
	if errors.As(err, &de) {
		var raw []byte
		switch d := de.ErrorData().(type) {
		case string:
			raw, _ = hexutil.Decode(d)
		case []byte:
			raw = d
		}
		if len(raw) > 0 {
			if reason, uerr := abi.UnpackRevert(raw); uerr == nil {
				return reason
			}
		}
	}
	m := err.Error()
	if i := strings.Index(m, "execution reverted: "); i >= 0 {
		return strings.TrimSpace(m[i+len("execution reverted: "):])
	}
	return ""
}
