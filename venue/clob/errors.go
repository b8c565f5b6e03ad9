package clob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/internal/rest"
)

// CodeDuplicateOrder is the code of the venue's refusal of an order it
// holds already (its text: "order … is invalid. Duplicated."). Callers
// test for it with Duplicate, never by the message text.
const CodeDuplicateOrder = "duplicate_order"

// Duplicate reports whether err is the venue's refusal of an order it holds
// already (a post whose earlier answer was lost): the order is at the
// venue, and reading it there tells what became of it.
func Duplicate(err error) bool { return venue.CodeOf(err) == CodeDuplicateOrder }

// venueRule maps a substring of the venue's error text to a classification.
type venueRule struct {
	substr string
	kind   venue.Category
	code   string
}

// venueRules are checked in order against the lower-cased error text
// (protocol doc §8.2); the first match wins.
var venueRules = []venueRule{
	{"not enough balance", venue.Rejected, "insufficient_balance_or_allowance"},
	{"invalid signature", venue.Rejected, "invalid_signature"},
	{"breaks minimum tick size", venue.Rejected, "invalid_tick_size"},
	{"invalid tick size", venue.Rejected, "invalid_tick_size"},
	{"lower than the minimum", venue.Rejected, "below_min_size"},
	{"min size", venue.Rejected, "below_min_size"},
	{"access restricted", venue.Forbidden, "geoblocked"},
	{"trading is currently disabled", venue.Unavailable, "trading_disabled"},
	{"cancel-only", venue.Rejected, "cancel_only"},
	{"post-only mode", venue.Rejected, "post_only_mode"},
	{"fok orders are fully filled or killed", venue.Rejected, "fok_not_filled"},
	{"fok orders are filled or killed", venue.Rejected, "fok_not_filled"},
	{"couldn't be fully filled", venue.Rejected, "fok_not_filled"},
	{"no orders found to match with fak", venue.Rejected, "fak_no_match"},
	{"there are no matching orders", venue.Rejected, "no_match"},
	{"invalid post-only order", venue.Rejected, "post_only_rejected"},
	{"crosses the book", venue.Rejected, "crosses_book"},
	{"duplicated", venue.Conflict, CodeDuplicateOrder},
	{"invalid amounts", venue.Rejected, "invalid_amounts"},
	{"invalid amount for a marketable", venue.Rejected, "below_min_size"},
	{"not yet ready to process new orders", venue.Unavailable, "market_not_ready"},
	{"address banned", venue.Forbidden, "address_banned"},
	{"closed only mode", venue.Forbidden, "closed_only"},
	{"order_version_mismatch", venue.Rejected, "order_version_mismatch"},
	{"too many orders in payload", venue.Invalid, "too_many_orders"},
	{"invalid expiration", venue.Invalid, "invalid_expiration"},
	{"has to be the owner of the api key", venue.Forbidden, "owner_mismatch"},
	{"has to be the address of the api key", venue.Forbidden, "signer_mismatch"},
	{"invalid l1 request headers", venue.Unauthorized, "invalid_l1_headers"},
	{"unauthorized", venue.Unauthorized, "unauthorized"},
	{"invalid api key", venue.Unauthorized, "unauthorized"},
	{"could not create api key", venue.Conflict, "api_key_create_failed"},
	{"could not derive api key", venue.NotFound, "api_key_not_found"},
	{"invalid order payload", venue.Invalid, "invalid_order_payload"},
	{"market not found", venue.NotFound, "not_found"},
	{"invalid orderid", venue.NotFound, "not_found"},
	{"no orderbook exists", venue.NotFound, "not_found"},
	{"not found", venue.NotFound, "not_found"},
	{"order canceled in the ctf exchange", venue.Conflict, "order_canceled"},
	{"rounding issues", venue.Rejected, "rounding_error"},
	{"discrepancy greater than allowed", venue.Rejected, "price_discrepancy"},
}

// MapVenueError classifies the venue's answer (status and error text). side,
// when known, names the asset a balance or allowance refusal lacks.
// The client-visible Message is the venue's own text, which carries no
// secrets and is what an agent needs to correct the order.
func MapVenueError(status int, msg string, retryAfter int, side *Side) *venue.Error {
	e := classifyAnswer(status, msg, retryAfter, side)
	e.Status = status
	return e
}

func classifyAnswer(status int, msg string, retryAfter int, side *Side) *venue.Error {
	lower := strings.ToLower(msg)
	text := msg
	if text == "" {
		text = http.StatusText(status)
	}
	if status == http.StatusTooManyRequests {
		e := venue.E(venue.RateLimited, "venue rate limit exceeded").WithCode("rate_limited")
		e.RetryAfterSeconds = retryAfter
		return e
	}
	for _, r := range venueRules {
		if strings.Contains(lower, r.substr) {
			e := venue.E(r.kind, text).WithCode(r.code)
			switch r.code {
			case "insufficient_balance_or_allowance":
				// The side tells which asset is short: the tokens a SELL
				// gives or the collateral a BUY pays.
				if side != nil && *side == Sell {
					e.Asset = venue.AssetConditional
				} else if side != nil {
					e.Asset = venue.AssetCollateral
				}
			case "trading_disabled", "market_not_ready", "post_only_mode", "cancel_only":
				e.RetryAfterSeconds = retryAfter
			}
			return e
		}
	}
	switch {
	case status == http.StatusNotFound:
		return venue.E(venue.NotFound, text).WithCode("not_found")
	case status == http.StatusUnauthorized:
		return venue.E(venue.Unauthorized, text).WithCode("unauthorized")
	case status == http.StatusForbidden:
		return venue.E(venue.Forbidden, text).WithCode("forbidden")
	case status == 425:
		return venue.E(venue.Unavailable, "venue matching engine is restarting").WithCode("engine_restarting")
	case status >= 500:
		e := venue.E(venue.Unavailable, "venue unavailable").WithCode("venue_unavailable").WithCause(fmt.Errorf("HTTP %d: %s", status, msg))
		e.RetryAfterSeconds = retryAfter
		return e
	}
	return venue.E(venue.Rejected, text).WithCode("venue_rejected")
}

// mapErr classifies a rest error.
func mapErr(err error, side *Side) error {
	if err == nil {
		return nil
	}
	if _, ok := venue.As(err); ok {
		return err
	}
	var se *rest.StatusError
	if errors.As(err, &se) {
		return MapVenueError(se.Status, se.Message, se.RetryAfter, side)
	}
	if errors.Is(err, context.Canceled) {
		return venue.Wrap(venue.Unavailable, err, "request canceled")
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return venue.E(venue.Unavailable, "venue timed out").WithCode("venue_timeout").WithCause(err)
	}
	return venue.E(venue.Unavailable, "venue unreachable").WithCode("venue_unreachable").WithCause(err)
}

// UnknownOutcome is the cause of an venue.Unavailable "unknown_outcome" error:
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
	return venue.Ef(venue.Unavailable, "order %s may or may not have been placed; check it before retrying", hash.Hex()).
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
			return venue.E(venue.Unavailable, "venue unreachable; the order was not sent").WithCode("venue_unreachable").WithCause(err)
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
