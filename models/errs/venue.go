package errs

import "github.com/agent-trading/ats/venue"

// HintApproveCTF is the remedy shown when a SELL lacks token balance or
// exchange approval.
const HintApproveCTF = "POST /wallet/approve with token CTF"

// HintApproveCollateral is the remedy shown when a BUY lacks collateral
// balance or approval.
const HintApproveCollateral = "fund the wallet or POST /wallet/approve with token USDC"

// kindOfCategory is what each venue answer means for the service's caller.
var kindOfCategory = [...]Kind{
	venue.Internal:    Internal,
	venue.Invalid:     Invalid,
	venue.Rejected:    VenueRejected,
	venue.NotFound:    NotFound,
	venue.Conflict:    Conflict,
	venue.RateLimited: RateLimited,
	venue.Unavailable: Transient,
	// The venue refusing the service's credentials or access is not the
	// caller's 401/403: the caller's key is fine, the service's is not.
	venue.Unauthorized: VenueDenied,
	venue.Forbidden:    VenueDenied,
}

// deniedCodes renames the venue's generic refusal codes, which would read
// as the caller's own authentication failing.
var deniedCodes = map[string]string{
	"unauthorized": "venue_unauthorized",
	"forbidden":    "venue_forbidden",
}

// deniedPrefix says whose request the venue refused, so the message does
// not read as the caller's own credentials being wrong.
var deniedPrefix = map[venue.Category]string{
	venue.Unauthorized: "the venue refused the service's credentials: ",
	venue.Forbidden:    "the venue refused access: ",
}

// FromVenue is THE mapping of a venue error to the service's taxonomy:
// its kind by category, its code (the venue's reasons pass through, except
// the generic 401/403 ones, renamed venue_unauthorized / venue_forbidden),
// its message, and the remedy a caller of this service can act on. As
// applies it to every venue error it finds, so no caller converts by hand.
func FromVenue(v *venue.Error) *Error {
	kind := Internal
	if int(v.Category) < len(kindOfCategory) {
		kind = kindOfCategory[v.Category]
	}
	e := &Error{Kind: kind, Code: v.Code, Message: v.Message, Hint: v.Hint, RetryAfterSeconds: v.RetryAfterSeconds, Err: v.Err}
	if kind == VenueDenied {
		code := v.Code
		if code == "" {
			code = v.Category.String()
		}
		if c, ok := deniedCodes[code]; ok {
			code = c
		}
		e.Code = code
		e.Message = deniedPrefix[v.Category] + v.Message
	}
	switch v.Asset {
	case venue.AssetConditional:
		e.Hint = HintApproveCTF
	case venue.AssetCollateral:
		e.Hint = HintApproveCollateral
	}
	return e
}
