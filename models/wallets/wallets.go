// Package wallets manages a user's trading wallet: importing the EOA private
// key together with the address that holds the funds, detecting the wallet
// kind (plain EOA, venue proxy wallet, Gnosis Safe, deposit wallet) from
// them, storing the key sealed in the vault, deriving the venue API
// credentials and seeding the demo wallet of `ats dev --demo`.
//
// The private key never leaves this package in plaintext: it is sealed with
// vault.WalletKey(user, wallet) before it is stored, and the signers handed
// out (Signer, ChainWallet) open it only for the duration of one signature.
// No DTO, error, log line or audit entry carries the key, its ciphertext or
// the venue API secret.
package wallets

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"log/slog"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/accounts/abi/bind"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/contracts"
	"github.com/agent-trading/ats/venue/network"
)

// Wallet types as the agent API's GET /balance reports them: every
// contract-held wallet (proxy, Safe, deposit) is "proxy", a key-held one is
// "eoa".
const (
	TypeProxy = "proxy"
	TypeEOA   = "eoa"
)

// Service is the wallet service. Store, Vault and Chain are required; CLOB
// is needed by Creds only; Audit defaults to an audit.Service on Store and
// Logger to a discarding logger.
type Service struct {
	Store *store.Store
	Vault *vault.Vault
	// Chain detects wallet kinds (deposit wallets are checked on chain) and
	// executes approvals for the demo.
	Chain *chain.Client
	// CLOB derives the venue API credentials through L1 auth.
	CLOB *clob.Client
	// Network must be the network Chain and CLOB serve; the zero value means
	// Chain.Network().
	Network network.Network
	Audit   *audit.Service
	Logger  *slog.Logger
	// Imported, when set, is told after the commit of every import that
	// stored a new wallet (cmd wires strategies.StopOwnCopies: a
	// COPY_TRADE whose target is now the user's own wallet stops). Its
	// error is logged: the import stands, and every copy checks its
	// target again.
	Imported func(ctx context.Context, userID, clientAddr string) error
	// RequireTwoFactor refuses Import for a user without two-step
	// verification (ErrTwoFactorRequired): the key moves real funds, so a
	// password alone must not be enough to put one in. The service turns
	// it on unless the operator relaxes it (--wallet-import-without-2fa).
	RequireTwoFactor bool
}

// ErrTwoFactorRequired refuses a wallet import to an account without
// two-step verification, saying why.
var ErrTwoFactorRequired = errs.E(errs.Forbidden, "turn on two-step verification before importing a private key: "+
	"the key trades with your funds, so a stolen password alone must never be enough to put a key in or replace it").
	WithCode(errs.CodeTwoFactorRequired)

// Wallet is the public view of a user's wallet. It holds addresses and
// flags only, never key material.
type Wallet struct {
	ID string `json:"id"`
	// Kind is eoa, proxy, safe or deposit.
	Kind string `json:"kind"`
	// Address is the trading wallet: the address that holds the funds and
	// is the order maker (the EOA itself for kind eoa).
	Address string `json:"address"`
	// EOAAddress is the key's address, which signs orders and pays gas.
	EOAAddress string `json:"eoaAddress"`
	// WalletType is GET /balance's walletType: proxy or eoa.
	WalletType string `json:"walletType"`
	// SignatureType is the CLOB order signature type the kind implies
	// (0 EOA, 1 proxy, 2 Safe, 3 deposit wallet).
	SignatureType int `json:"signatureType"`
	// HasAPICredentials says whether venue API credentials are stored.
	HasAPICredentials bool      `json:"hasApiCredentials"`
	CreatedAt         time.Time `json:"createdAt"`
	UpdatedAt         time.Time `json:"updatedAt"`
}

func toDTO(w *models.Wallet) Wallet {
	return Wallet{
		ID:                w.ID,
		Kind:              w.Kind,
		Address:           w.FunderAddress,
		EOAAddress:        w.EOAAddress,
		WalletType:        walletType(w.Kind),
		SignatureType:     w.SignatureType,
		HasAPICredentials: len(w.APICredsCiphertext) > 0,
		CreatedAt:         w.CreatedAt.UTC(),
		UpdatedAt:         w.UpdatedAt.UTC(),
	}
}

func walletType(kind string) string {
	if kind == models.WalletEOA {
		return TypeEOA
	}
	return TypeProxy
}

func (s *Service) log() *slog.Logger {
	if s.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return s.Logger
}

func (s *Service) audit() *audit.Service {
	if s.Audit == nil {
		return &audit.Service{Store: s.Store}
	}
	return s.Audit
}

func (s *Service) network() network.Network {
	if s.Network.ChainID == 0 && s.Chain != nil {
		return s.Chain.Network()
	}
	return s.Network
}

// ParsePrivateKey validates a hex private key: 32 bytes as 64 hex digits
// with an optional 0x prefix (surrounding white space, such as the newline
// of a line read from stdin, is ignored), in the secp256k1 range. Errors
// are Invalid with code "invalid_private_key" and never quote the input.
func ParsePrivateKey(hexKey string) (*ecdsa.PrivateKey, error) {
	h := strings.TrimSpace(hexKey)
	if len(h) >= 2 && h[0] == '0' && (h[1] == 'x' || h[1] == 'X') {
		h = h[2:]
	}
	bad := func(msg string) error {
		return errs.E(errs.Invalid, msg).WithCode(errs.CodeInvalidPrivateKey).
			WithHint("paste the 64 hex digits of the wallet's private key (an optional 0x prefix is fine)")
	}
	if len(h) != 64 {
		return nil, bad("the private key must be 32 bytes written as 64 hex digits")
	}
	raw, err := hex.DecodeString(h)
	if err != nil {
		return nil, bad("the private key must be 32 bytes written as 64 hex digits")
	}
	defer clear(raw)
	key, err := crypto.ToECDSA(raw)
	if err != nil {
		// Zero or not below the curve order: not a secp256k1 key.
		return nil, bad("the private key is not a valid secp256k1 key")
	}
	return key, nil
}

// parseFunder validates the optional funding (proxy/Safe/deposit) address.
func parseFunder(s string) (common.Address, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return common.Address{}, nil
	}
	if !common.IsHexAddress(s) {
		return common.Address{}, errs.E(errs.Invalid, "the wallet address is not a 0x-prefixed 20-byte hex address").
			WithCode(errs.CodeInvalidAddress)
	}
	a := common.HexToAddress(s)
	if a == (common.Address{}) {
		return common.Address{}, errs.E(errs.Invalid, "the wallet address must not be the zero address").
			WithCode(errs.CodeInvalidAddress)
	}
	return a, nil
}

func modelKind(k chain.Kind) string {
	switch k {
	case chain.Proxy:
		return models.WalletProxy
	case chain.Safe:
		return models.WalletSafe
	case chain.Deposit:
		return models.WalletDeposit
	default:
		return models.WalletEOA
	}
}

// Import stores privateKeyHex as userID's wallet. fundingAddress is the
// address that holds the funds: empty (or the key's own address) for a
// plain EOA, otherwise the venue proxy wallet, the Safe or a deposit wallet
// of the key; anything else is refused (Invalid, code "wallet_not_owned").
// The kind, and with it the order signature type, is detected, never asked.
//
// Importing the same key and address again is idempotent: the stored wallet
// is returned unchanged (same ID, same ciphertext). Importing a different
// key or address replaces the wallet: the old row and its ciphertext are
// deleted and the new key is sealed under a new wallet ID, so nothing sealed
// for the old wallet opens for the new one. The same key imported by a
// second user is a Conflict ("wallet_in_use"). clientAddr is recorded in the
// audit log. With RequireTwoFactor, a user without two-step verification
// is refused first (ErrTwoFactorRequired), before the key is even parsed.
func (s *Service) Import(ctx context.Context, userID, privateKeyHex, fundingAddress, clientAddr string) (Wallet, error) {
	if s.RequireTwoFactor {
		u, err := s.Store.UserByID(ctx, userID)
		if err != nil {
			return Wallet{}, err
		}
		if !u.TOTPEnabled {
			s.auditFailure(ctx, userID, audit.ActionWalletImport, clientAddr, ErrTwoFactorRequired)
			return Wallet{}, ErrTwoFactorRequired
		}
	}
	key, err := ParsePrivateKey(privateKeyHex)
	if err != nil {
		s.auditFailure(ctx, userID, audit.ActionWalletImport, clientAddr, err)
		return Wallet{}, err
	}
	defer zeroKey(key)
	funder, err := parseFunder(fundingAddress)
	if err != nil {
		s.auditFailure(ctx, userID, audit.ActionWalletImport, clientAddr, err)
		return Wallet{}, err
	}
	w, err := s.importKey(ctx, userID, key, funder, clientAddr)
	if err != nil {
		s.auditFailure(ctx, userID, audit.ActionWalletImport, clientAddr, err)
		return Wallet{}, err
	}
	return w, nil
}

// importKey is Import after parsing.
func (s *Service) importKey(ctx context.Context, userID string, key *ecdsa.PrivateKey, funder common.Address, clientAddr string) (Wallet, error) {
	if userID == "" {
		return Wallet{}, errs.E(errs.Invalid, "a wallet needs a user")
	}
	if s.Chain == nil {
		return Wallet{}, errs.E(errs.Internal, "the wallet service has no chain client")
	}
	owner := crypto.PubkeyToAddress(key.PublicKey)
	kind, err := s.Chain.DetectKind(ctx, owner, funder)
	if err != nil {
		if errs.KindOf(err) == errs.Invalid {
			return Wallet{}, errs.Ef(errs.Invalid,
				"the wallet address %s does not belong to this private key: it is neither the key's address, its venue proxy wallet, its Safe nor a deposit wallet it owns",
				funder.Hex()).WithCode(errs.CodeWalletNotOwned).
				WithHint("give the proxy/Safe address shown in your venue account for this key, or no address to trade from the key's own address").
				WithCause(err)
		}
		return Wallet{}, err
	}
	if kind == chain.Safe {
		if err := s.checkSafe(ctx, owner, funder); err != nil {
			return Wallet{}, err
		}
	}
	maker := owner
	if kind != chain.EOA {
		maker = funder
	}
	mk := modelKind(kind)

	var (
		out      Wallet
		replaced string
		replay   bool
	)
	err = s.Store.Tx(ctx, func(tx *store.Store) error {
		var other int64
		if err := tx.DB().WithContext(ctx).Model(&models.Wallet{}).
			Where("eoa_address = ? AND user_id <> ?", owner.Hex(), userID).Count(&other).Error; err != nil {
			return errs.Wrap(errs.Internal, err, "could not check the wallet")
		}
		if other > 0 {
			return errs.E(errs.Conflict, "this wallet is already imported by another account").WithCode(errs.CodeWalletInUse)
		}
		old, err := tx.WalletByUser(ctx, userID)
		switch {
		case errs.Is(err, errs.NotFound):
		case err != nil:
			return err
		case old.EOAAddress == owner.Hex() && old.FunderAddress == maker.Hex() && old.Kind == mk:
			replay = true
			out = toDTO(old)
			return audit.Append(ctx, tx, audit.Entry{
				UserID: userID, Action: audit.ActionWalletImport, Target: old.ID, Result: audit.Success,
				ClientAddr: clientAddr, Detail: map[string]any{"kind": mk, "address": maker.Hex(), "unchanged": true},
			})
		default:
			replaced = old.ID
		}
		w := &models.Wallet{
			ID:            models.NewID(models.PrefixWallet),
			UserID:        userID,
			Kind:          mk,
			EOAAddress:    owner.Hex(),
			FunderAddress: maker.Hex(),
			SignatureType: int(kind.SignatureType()),
		}
		raw := crypto.FromECDSA(key)
		sealed, err := s.Vault.Seal(vault.WalletKey(userID, w.ID), raw)
		clear(raw)
		if err != nil {
			return err
		}
		w.KeyCiphertext, w.KeyNonce, w.KeyVersion = sealed.Ciphertext, sealed.Nonce, sealed.KeyVersion
		if err := tx.UpsertWallet(ctx, w); err != nil {
			return err
		}
		detail := map[string]any{"kind": mk, "address": maker.Hex(), "eoa_address": owner.Hex()}
		if replaced != "" {
			detail["replaced_wallet_id"] = replaced
		}
		out = toDTO(w)
		return audit.Append(ctx, tx, audit.Entry{
			UserID: userID, Action: audit.ActionWalletImport, Target: w.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: detail,
		})
	})
	if err != nil {
		return Wallet{}, err
	}
	if !replay && s.Imported != nil {
		if err := s.Imported(ctx, userID, clientAddr); err != nil {
			s.log().WarnContext(ctx, "could not stop the strategies copying the imported wallet", "user_id", userID, "wallet_id", out.ID, "error", err)
		}
	}
	switch {
	case replay:
		s.log().InfoContext(ctx, "wallet import replayed", "user_id", userID, "wallet_id", out.ID, "kind", out.Kind)
	case replaced != "":
		s.log().InfoContext(ctx, "wallet replaced", "user_id", userID, "wallet_id", out.ID,
			"replaced_wallet_id", replaced, "kind", out.Kind, "address", out.Address)
	default:
		s.log().InfoContext(ctx, "wallet imported", "user_id", userID, "wallet_id", out.ID, "kind", out.Kind, "address", out.Address)
	}
	return out, nil
}

// auditFailure records a refused import or delete. Only the error's public
// message goes in, which never quotes the key.
func (s *Service) auditFailure(ctx context.Context, userID, action, clientAddr string, cause error) {
	if userID == "" {
		return
	}
	detail := map[string]any{"error": errs.PublicMessage(cause)}
	if e, ok := errs.As(cause); ok && e.Code != "" {
		detail["code"] = e.Code
	}
	if err := s.audit().Record(ctx, audit.Entry{
		UserID: userID, Action: action, Result: audit.Failure, ClientAddr: clientAddr, Detail: detail,
	}); err != nil {
		s.log().WarnContext(ctx, "could not record a wallet audit entry", "user_id", userID, "action", action, "error", err)
	}
}

// Get returns userID's wallet, NotFound when none is imported.
func (s *Service) Get(ctx context.Context, userID string) (Wallet, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return Wallet{}, err
	}
	return toDTO(w), nil
}

func (s *Service) walletRow(ctx context.Context, userID string) (*models.Wallet, error) {
	w, err := s.Store.WalletByUser(ctx, userID)
	if errs.Is(err, errs.NotFound) {
		return nil, errs.E(errs.NotFound, "no wallet is imported for this account").WithCode(errs.CodeNoWallet).
			WithHint("import a wallet first (ats admin wallet import)")
	}
	return w, err
}

// Delete removes userID's wallet with its sealed key and API credentials;
// NotFound when there is none.
func (s *Service) Delete(ctx context.Context, userID, clientAddr string) error {
	var id string
	err := s.Store.Tx(ctx, func(tx *store.Store) error {
		w, err := tx.WalletByUser(ctx, userID)
		if errs.Is(err, errs.NotFound) {
			return errs.E(errs.NotFound, "no wallet is imported for this account").WithCode(errs.CodeNoWallet)
		}
		if err != nil {
			return err
		}
		id = w.ID
		if err := tx.DeleteWallet(ctx, userID, w.ID); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{
			UserID: userID, Action: audit.ActionWalletDelete, Target: w.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: map[string]any{"kind": w.Kind, "address": w.FunderAddress},
		})
	})
	if err != nil {
		return err
	}
	s.log().InfoContext(ctx, "wallet deleted", "user_id", userID, "wallet_id", id)
	return nil
}

// TradingWallet is what GET /balance reports: the address holding the funds
// and "proxy" (proxy, Safe, deposit wallet) or "eoa".
func (s *Service) TradingWallet(ctx context.Context, userID string) (common.Address, string, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return common.Address{}, "", err
	}
	return common.HexToAddress(w.FunderAddress), walletType(w.Kind), nil
}

// ChainWallet is the user's wallet for the chain client (approve, redeem),
// signing through the vault.
func (s *Service) ChainWallet(ctx context.Context, userID string) (chain.Wallet, error) {
	w, err := s.walletRow(ctx, userID)
	if err != nil {
		return chain.Wallet{}, err
	}
	return s.chainWallet(w)
}

func (s *Service) chainWallet(w *models.Wallet) (chain.Wallet, error) {
	k, err := chain.ParseKind(w.Kind)
	if err != nil {
		return chain.Wallet{}, errs.Wrap(errs.Internal, err, "the stored wallet has an unknown kind")
	}
	return chain.Wallet{
		Kind:   k,
		Owner:  common.HexToAddress(w.EOAAddress),
		Funder: common.HexToAddress(w.FunderAddress),
		Signer: s.signerFor(w),
	}, nil
}

// checkSafe backs the derivation with the Safe's state when it is deployed:
// owners can be swapped after creation, and a Safe the key no longer owns
// alone (not an owner, or a threshold above one) cannot execute the
// approvals and redemptions the service sends. An undeployed Safe is
// accepted on derivation alone; the chain client reports it as not deployed
// when a transaction needs it.
func (s *Service) checkSafe(ctx context.Context, owner, safe common.Address) error {
	b := s.Chain.Backend()
	code, err := b.CodeAt(ctx, safe, nil)
	if err != nil {
		return errs.Wrap(errs.Transient, err, "could not read the Safe on chain; try again")
	}
	if len(code) == 0 {
		return nil
	}
	c, err := contracts.NewSafeCaller(safe, b)
	if err != nil {
		return errs.Wrap(errs.Internal, err, "bind the Safe")
	}
	opts := &bind.CallOpts{Context: ctx}
	isOwner, err := c.IsOwner(opts, owner)
	if err != nil {
		return errs.Wrap(errs.Transient, err, "could not read the Safe owners on chain; try again")
	}
	if !isOwner {
		return errs.Ef(errs.Invalid, "the Safe %s no longer has this key as an owner", safe.Hex()).WithCode(errs.CodeWalletNotOwned)
	}
	th, err := c.GetThreshold(opts)
	if err != nil {
		return errs.Wrap(errs.Transient, err, "could not read the Safe threshold on chain; try again")
	}
	if th.Cmp(big.NewInt(1)) != 0 {
		return errs.Ef(errs.Invalid, "the Safe %s needs %s signatures; only 1-of-1 Safes can trade", safe.Hex(), th).WithCode(errs.CodeSafeThreshold)
	}
	return nil
}
