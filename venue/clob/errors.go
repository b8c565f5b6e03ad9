package clob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/clob/rest"
)

// HintApproveCTF is the remedy shown when a SELL lacks token balance or
// exchange approval.
const HintApproveCTF = "POST /wallet/approve with token CTF"

// HintApproveCollateral is the remedy shown when a BUY lacks collateral
// balance or approval.
const HintApproveCollateral = "fund the wallet or POST /wallet/approve with token USDC"

// venueRule maps a substring of the venue's error text to a classification.
type venueRule struct {
	substr string
	kind   errs.Kind
	code   string
}

// venueRules are checked in order against the lower-cased error text
// (protocol doc §8.2); the first match wins.
var venueRules = []venueRule{
	{"not enough balance", errs.VenueRejected, "insufficient_balance_or_allowance"},
	{"invalid signature", errs.VenueRejected, "invalid_signature"},
	{"breaks minimum tick size", errs.VenueRejected, "invalid_tick_size"},
	{"invalid tick size", errs.VenueRejected, "invalid_tick_size"},
	{"lower than the minimum", errs.VenueRejected, "below_min_size"},
	{"min size", errs.VenueRejected, "below_min_size"},
	{"access restricted", errs.Forbidden, "geoblocked"},
	{"trading is currently disabled", errs.Transient, "trading_disabled"},
	{"cancel-only", errs.VenueRejected, "cancel_only"},
	{"post-only mode", errs.VenueRejected, "post_only_mode"},
	{"fok orders are fully filled or killed", errs.VenueRejected, "fok_not_filled"},
	{"fok orders are filled or killed", errs.VenueRejected, "fok_not_filled"},
	{"couldn't be fully filled", errs.VenueRejected, "fok_not_filled"},
	{"no orders found to match with fak", errs.VenueRejected, "fak_no_match"},
	{"there are no matching orders", errs.VenueRejected, "no_match"},
	{"invalid post-only order", errs.VenueRejected, "post_only_rejected"},
	{"crosses the book", errs.VenueRejected, "crosses_book"},
	{"duplicated", errs.Conflict, "duplicate_order"},
	{"invalid amounts", errs.VenueRejected, "invalid_amounts"},
	{"invalid amount for a marketable", errs.VenueRejected, "below_min_size"},
	{"not yet ready to process new orders", errs.Transient, "market_not_ready"},
	{"address banned", errs.Forbidden, "address_banned"},
	{"closed only mode", errs.Forbidden, "closed_only"},
	{"order_version_mismatch", errs.VenueRejected, "order_version_mismatch"},
	{"too many orders in payload", errs.Invalid, "too_many_orders"},
	{"invalid expiration", errs.Invalid, "invalid_expiration"},
	{"has to be the owner of the api key", errs.Forbidden, "owner_mismatch"},
	{"has to be the address of the api key", errs.Forbidden, "signer_mismatch"},
	{"invalid l1 request headers", errs.Unauthorized, "invalid_l1_headers"},
	{"unauthorized", errs.Unauthorized, "unauthorized"},
	{"invalid api key", errs.Unauthorized, "unauthorized"},
	{"could not create api key", errs.Conflict, "api_key_create_failed"},
	{"could not derive api key", errs.NotFound, "api_key_not_found"},
	{"invalid order payload", errs.Invalid, "invalid_order_payload"},
	{"market not found", errs.NotFound, "not_found"},
	{"invalid orderid", errs.NotFound, "not_found"},
	{"no orderbook exists", errs.NotFound, "not_found"},
	{"not found", errs.NotFound, "not_found"},
	{"order canceled in the ctf exchange", errs.Conflict, "order_canceled"},
	{"rounding issues", errs.VenueRejected, "rounding_error"},
	{"discrepancy greater than allowed", errs.VenueRejected, "price_discrepancy"},
}

// MapVenueError classifies the venue's answer (status and error text) into
// models/errs. side, when known, refines the remedy hint of balance errors.
// The client-visible Message is the venue's own text, which carries no
// secrets and is what an agent needs to correct the order.
func MapVenueError(status int, msg string, retryAfter int, side *Side) *errs.Error {
	lower := strings.ToLower(msg)
	text := msg
	if text == "" {
		text = http.StatusText(status)
	}
	if status == http.StatusTooManyRequests {
		e := errs.E(errs.RateLimited, "venue rate limit exceeded").WithCode("rate_limited")
		e.RetryAfterSeconds = retryAfter
		return e
	}
	for _, r := range venueRules {
		if strings.Contains(lower, r.substr) {
			e := errs.E(r.kind, text).WithCode(r.code)
			switch r.code {
			case "insufficient_balance_or_allowance":
				if side != nil && *side == Sell {
					e = e.WithHint(HintApproveCTF)
				} else if side != nil {
					e = e.WithHint(HintApproveCollateral)
				}
			case "trading_disabled", "market_not_ready", "post_only_mode", "cancel_only":
				e.RetryAfterSeconds = retryAfter
			}
			return e
		}
	}
	switch {
	case status == http.StatusNotFound:
		return errs.E(errs.NotFound, text).WithCode("not_found")
	case status == http.StatusUnauthorized:
		return errs.E(errs.Unauthorized, text).WithCode("unauthorized")
	case status == http.StatusForbidden:
		return errs.E(errs.Forbidden, text).WithCode("forbidden")
	case status == 425:
		return errs.E(errs.Transient, "venue matching engine is restarting").WithCode("engine_restarting")
	case status >= 500:
		e := errs.E(errs.Transient, "venue unavailable").WithCode("venue_unavailable").WithCause(fmt.Errorf("HTTP %d: %s", status, msg))
		e.RetryAfterSeconds = retryAfter
		return e
	}
	return errs.E(errs.VenueRejected, text).WithCode("venue_rejected")
}

// mapErr converts a rest error into models/errs.
func mapErr(err error, side *Side) error {
	if err == nil {
		return nil
	}
	if _, ok := errs.As(err); ok {
		return err
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		return MapVenueError(se.Status, se.Message, se.RetryAfter, side)
	}
	if errors.Is(err, context.Canceled) {
		return errs.Wrap(errs.Transient, err, "request canceled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return errs.E(errs.Transient, "venue timed out").WithCode("venue_timeout").WithCause(err)
	}
	return errs.E(errs.Transient, "venue unreachable").WithCode("venue_unreachable").WithCause(err)
}

// UnknownOutcome is the cause of an errs.Transient "unknown_outcome" error:
// an order was (possibly) delivered but no answer came back, so whether it
// rests, filled or was rejected is unknown. Reconcile with GetOrder(OrderHash)
// before posting again; re-posting blindly could double the position.
type UnknownOutcome struct {
	OrderHash common.Hash
	Err       error
}

// Error names the order and the transport failure.
func (u *UnknownOutcome) Error() string {
	return "order " + u.OrderHash.Hex() + " outcome unknown: " + u.Err.Error()
}

// Unwrap exposes the transport failure.
func (u *UnknownOutcome) Unwrap() error { return u.Err }

func unknownOutcome(hash common.Hash, cause error) error {
	return errs.Ef(errs.Transient, "order %s may or may not have been placed; check it before retrying", hash.Hex()).
		WithCode("unknown_outcome").WithCause(&UnknownOutcome{OrderHash: hash, Err: cause})
}

// UnknownOutcomeHash returns the order hash of an unknown_outcome error.
func UnknownOutcomeHash(err error) (common.Hash, bool) {
	var u *UnknownOutcome
	if errors.As(err, &u) {
		return u.OrderHash, true
	}
	return common.Hash{}, false
}

// postErr classifies a failed POST /order(s): definite answers map like any
// other; no answer, or a gateway-style 5xx that does not say what happened,
// becomes unknown_outcome for hash — unless the request provably never left.
func postErr(err error, hash common.Hash, side *Side) error {
	var te *rest.TransportError
	if errors.As(err, &te) {
		if te.NotSent {
			return errs.E(errs.Transient, "venue unreachable; the order was not sent").WithCode("venue_unreachable").WithCause(err)
		}
		return unknownOutcome(hash, err)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return unknownOutcome(hash, err)
	}
	var se *rest.StatusError
	if errors.As(err, &se) && se.Status >= 500 {
		m := MapVenueError(se.Status, se.Message, se.RetryAfter, side)
		if m.Code == "venue_unavailable" {
			return unknownOutcome(hash, err)
		}
		return m
	}
	return mapErr(err, side)
}
