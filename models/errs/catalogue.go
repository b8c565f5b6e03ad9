package errs

import (
	"slices"
	"sync"
)

// The error codes: the machine-readable "code" of an error answer (and, on
// the device token endpoint, its "error"), which agents and users branch
// on. Every code the service can answer with is one constant here and one
// row of the catalogue below; a test fails when code elsewhere uses a code
// that is not in the catalogue, and another when a response in the HTTP
// tests carries one. docs/api-errors.md is generated from the catalogue
// (go generate ./api).
//
// Adding a code: one constant in its group here and one row in its group of
// catalogue, then go generate ./api.
const (
	// Requests (any endpoint).
	CodeInvalidJSON  = "invalid_json"
	CodeInvalidField = "invalid_field"
	CodeUnknownField = "unknown_field"
	CodeInvalidQuery = "invalid_query"

	// Authentication and limits.
	CodeMissingAPIKey          = "missing_api_key"
	CodeInvalidAPIKey          = "invalid_api_key"
	CodeKeyRevoked             = "key_revoked"
	CodeAgentPaused            = "agent_paused"
	CodeInsufficientScope      = "insufficient_scope"
	CodeRateLimiterUnavailable = "rate_limiter_unavailable"
	CodeUnvouchedRequest       = "unvouched_request"

	// Idempotency-Key.
	CodeInvalidIdempotencyKey = "invalid_idempotency_key"
	CodeIdempotencyKeyReused  = "idempotency_key_reused"
	CodeIdempotencyInFlight   = "idempotency_in_flight"
	CodeIdempotencyContention = "idempotency_contention"

	// Device linking: the RFC 8628 token errors, then the rest.
	CodeAuthorizationPending = "authorization_pending"
	CodeSlowDown             = "slow_down"
	CodeExpiredToken         = "expired_token"
	CodeAccessDenied         = "access_denied"
	CodeInvalidGrant         = "invalid_grant"
	CodeAlreadyIssued        = "already_issued"
	CodeInvalidRequest       = "invalid_request"
	CodeInvalidAgentName     = "invalid_agent_name"
	CodeInvalidUserCode      = "invalid_user_code"
	CodeCodeAlreadyUsed      = "code_already_used"
	CodeDeviceLinkState      = "device_link_state"
	CodeDeviceLinkNotExpired = "device_link_not_expired"
	CodeReviewRequired       = "review_required"
	CodeTooManyAttempts      = "too_many_attempts"

	// Market data.
	CodeInvalidID         = "invalid_id"
	CodeInvalidSlug       = "invalid_slug"
	CodeInvalidTokenID    = "invalid_token_id"
	CodeTooManyTokens     = "too_many_tokens"
	CodeInvalidAsset      = "invalid_asset"
	CodeInvalidTimeframe  = "invalid_timeframe"
	CodeNotFound          = "not_found"
	CodeMarketNotFound    = "market_not_found"
	CodeTokenNotFound     = "token_not_found"
	CodeNoAcceptingMarket = "no_accepting_market"

	// Orders.
	CodeInvalidSide           = "invalid_side"
	CodeInvalidPrice          = "invalid_price"
	CodeInvalidSize           = "invalid_size"
	CodeInvalidOrderType      = "invalid_order_type"
	CodeInvalidTickSize       = "invalid_tick_size"
	CodeBelowMinSize          = "below_min_size"
	CodeInvalidAmount         = "invalid_amount"
	CodeInvalidAmounts        = "invalid_amounts"
	CodeInvalidExpiration     = "invalid_expiration"
	CodeInvalidPostOnly       = "invalid_post_only"
	CodeInvalidOrderPayload   = "invalid_order_payload"
	CodeInvalidSignatureType  = "invalid_signature_type"
	CodeSignerMismatch        = "signer_mismatch"
	CodeTooManyOrders         = "too_many_orders"
	CodeInvalidStatus         = "invalid_status"
	CodeUnknownToken          = "unknown_token"
	CodeNoWallet              = "no_wallet"
	CodeInsufficientBalance   = "insufficient_balance"
	CodeAllowanceError        = "allowance_error"
	CodeBudgetExceeded        = "budget_exceeded"
	CodeInsufficientPosition  = "insufficient_position"
	CodeAgentInactive         = "agent_inactive"
	CodeControlPending        = "control_pending"
	CodeNoMatch               = "no_match"
	CodeOrderNotCancellable   = "order_not_cancellable"
	CodeCancelInProgress      = "cancel_in_progress"
	CodeCancelUnconfirmed     = "cancel_unconfirmed"
	CodePostInFlight          = "post_in_flight"
	CodeUnknownOutcome        = "unknown_outcome"
	CodeOrderState            = "order_state"
	CodeOrderWorkflowNotFound = "order_workflow_not_found"
	CodeReservationRef        = "reservation_ref"

	// Positions.
	CodePositionNotFound = "position_not_found"
	CodePositionClosed   = "position_closed"
	CodePositionResolved = "position_resolved"
	CodePositionInOrders = "position_in_orders"
	CodeNoBids           = "no_bids"
	CodeInvalidClose     = "invalid_close"

	// Strategies.
	CodeInvalidStrategyType     = "invalid_strategy_type"
	CodeInvalidMarketSelector   = "invalid_market_selector"
	CodeInvalidTriggerCondition = "invalid_trigger_condition"
	CodeInvalidTriggerPrice     = "invalid_trigger_price"
	CodeInvalidInterval         = "invalid_interval"
	CodeInvalidOutcome          = "invalid_outcome"
	CodeInvalidStrategyAmount   = "invalid_strategy_amount"
	CodeInvalidPriceBand        = "invalid_price_band"
	CodeInvalidMaxBudget        = "invalid_max_budget"
	CodeInvalidExpiry           = "invalid_expiry"
	CodeStrategyTypeImmutable   = "strategy_type_immutable"
	CodeStrategyLimit           = "strategy_limit_reached"
	CodeStrategyFinal           = "strategy_final"
	CodeMarketQueryUnresolved   = "market_query_unresolved"
	CodeStrategyNotFound        = "strategy_not_found"
	CodeInvalidTargetAddress    = "invalid_target_address"
	CodeCopyOwnWallet           = "copy_target_own_wallet"
	CodeCopyTargetImmutable     = "copy_target_immutable"
	CodeStrategyTokenInUse      = "strategy_token_in_use"
	CodeInvalidSizingMode       = "invalid_sizing_mode"
	CodeInvalidProportion       = "invalid_proportion_pct"
	CodeInvalidCopySells        = "invalid_copy_sells"
	CodeInvalidTokenFilter      = "invalid_token_filter"
	CodeStrategyInfeasible      = "strategy_infeasible"
	CodeStrategyMarketClosed    = "strategy_market_closed"
	CodeInvalidBacktestWindow   = "invalid_backtest_window"
	CodeNoPriceHistory          = "no_price_history"

	// Wallet approvals and redemptions.
	CodeInvalidToken         = "invalid_token"
	CodeInvalidConditionID   = "invalid_condition_id"
	CodeSettlementInProgress = "settlement_in_progress"
	CodeSettlementPending    = "settlement_pending"
	CodeWalletChanged        = "wallet_changed"
	CodeWalletNotDeployed    = "wallet_not_deployed"
	CodeApprovalRequired     = "approval_required"
	CodeInsufficientGas      = "insufficient_gas"
	CodeReverted             = "reverted"
	CodeNotResolved          = "not_resolved"
	CodeReceiptTimeout       = "receipt_timeout"

	// The venue's answers, classified (venue/clob).
	CodeVenueRejected                  = "venue_rejected"
	CodeVenueUnavailable               = "venue_unavailable"
	CodeVenueTimeout                   = "venue_timeout"
	CodeVenueUnreachable               = "venue_unreachable"
	CodeEngineRestarting               = "engine_restarting"
	CodeMarketNotReady                 = "market_not_ready"
	CodeTradingDisabled                = "trading_disabled"
	CodeRateLimited                    = "rate_limited"
	CodeVenueUnauthorized              = "venue_unauthorized"
	CodeVenueForbidden                 = "venue_forbidden"
	CodeInsufficientBalanceOrAllowance = "insufficient_balance_or_allowance"
	CodeInvalidSignature               = "invalid_signature"
	CodeGeoblocked                     = "geoblocked"
	CodeAddressBanned                  = "address_banned"
	CodeClosedOnly                     = "closed_only"
	CodeCancelOnly                     = "cancel_only"
	CodePostOnlyMode                   = "post_only_mode"
	CodePostOnlyRejected               = "post_only_rejected"
	CodeCrossesBook                    = "crosses_book"
	CodeFOKNotFilled                   = "fok_not_filled"
	CodeFAKNoMatch                     = "fak_no_match"
	CodeDuplicateOrder                 = "duplicate_order"
	CodeOrderCanceled                  = "order_canceled"
	CodeOrderVersionMismatch           = "order_version_mismatch"
	CodeRoundingError                  = "rounding_error"
	CodePriceDiscrepancy               = "price_discrepancy"
	CodeOwnerMismatch                  = "owner_mismatch"
	CodeInvalidL1Headers               = "invalid_l1_headers"
	CodeNoAPIKey                       = "no_api_key"
	CodeEmptySecret                    = "empty_secret"
	CodeInvalidSecret                  = "invalid_secret"
	CodeAPIKeyCreateFailed             = "api_key_create_failed"
	CodeAPIKeyNotFound                 = "api_key_not_found"
	CodePaginationOverflow             = "pagination_overflow"

	// Dashboard and administration (users, agents, wallets).
	CodeInvalidEmail       = "invalid_email"
	CodeInvalidPassword    = "invalid_password"
	CodeEmailTaken         = "email_taken"
	CodeInvalidCredentials = "invalid_credentials"
	CodeAmbiguousAgent     = "ambiguous_agent"
	CodeAgentRevoked       = "agent_revoked"
	CodeInvalidBudget      = "invalid_budget"
	CodeInvalidMode        = "invalid_mode"
	CodeInvalidHeartbeat   = "invalid_heartbeat"
	CodeInvalidRateLimit   = "invalid_rate_limit"
	CodeInvalidPrivateKey  = "invalid_private_key"
	CodeInvalidAddress     = "invalid_address"
	CodeWalletNotOwned     = "wallet_not_owned"
	CodeWalletInUse        = "wallet_in_use"
	CodeSafeThreshold      = "safe_threshold"
	CodeStrategyState      = "strategy_state"
	CodeTwoFactorRequired  = "two_factor_required"
	CodeInvalidWebhookURL  = "invalid_webhook_url"

	// Sign-in and account security (the link page and the dashboard).
	CodeServerBusy         = "server_busy"
	CodeWrongPassword      = "wrong_password"
	CodeSignupClosed       = "signup_closed"
	CodeInviteRequired     = "invite_required"
	CodeInvalidInvite      = "invalid_invite"
	CodeTwoFactorEnabled   = "two_factor_enabled"
	CodeTwoFactorState     = "two_factor_state"
	CodeTwoFactorDisabled  = "two_factor_disabled"
	CodeInvalidCode        = "invalid_code"
	CodeCodeReplayed       = "code_replayed"
	CodeBackupCodeUsed     = "backup_code_used"
	CodeTOTPReplayed       = "totp_replayed"
	CodeStepUpRequired     = "step_up_required"
	CodeNoCeremony         = "no_ceremony"
	CodeInvalidPasskeyName = "invalid_passkey_name"
	CodePasskeyExists      = "passkey_exists"
	CodePasskeyFailed      = "passkey_failed"
	CodeNoPasskey          = "no_passkey"
	CodeUnknownProvider    = "unknown_provider"
	CodeOIDCFailed         = "oidc_failed"
	CodeEmailNotVerified   = "email_not_verified"
	CodeEmailMismatch      = "email_mismatch"
	CodeIdentityLinked     = "identity_linked"
	CodeLastSignInMethod   = "last_sign_in_method"
)

// Entry describes one error code for clients.
type Entry struct {
	// Code is the machine-readable code.
	Code string
	// Kind is the kind the code is answered with, which gives its HTTP
	// status (api.StatusFor). Also lists the other kinds a few codes are
	// answered with on some paths (e.g. no_wallet is 404 on a read and 409
	// when an order needs the wallet).
	Kind Kind
	Also []Kind
	// Meaning says when the code is answered; Remedy what the client does
	// about it.
	Meaning string
	Remedy  string
}

// Kinds returns Kind followed by Also.
func (e Entry) Kinds() []Kind { return append([]Kind{e.Kind}, e.Also...) }

// Group is a titled part of the catalogue, one area of the service.
type Group struct {
	Title   string
	Entries []Entry
}

// catalogue is THE list of error codes. Keep each entry on one line.
var catalogue = []Group{
	{Title: "Requests (any endpoint)", Entries: []Entry{
		{Code: CodeInvalidJSON, Kind: Invalid, Meaning: "The body is empty, `null`, not JSON, or more than one JSON value; the message gives line and column.", Remedy: "Send exactly one JSON object."},
		{Code: CodeInvalidField, Kind: Invalid, Meaning: "A field has the wrong JSON type or a value its decoder refuses; the message names the field and the expected type.", Remedy: "Fix the named field."},
		{Code: CodeUnknownField, Kind: Invalid, Meaning: "The body has a field the endpoint does not accept (misspelt, or from a newer API).", Remedy: "Remove or correct the named field."},
		{Code: CodeInvalidQuery, Kind: Invalid, Meaning: "A query parameter is missing, malformed or out of range; the message names it and its bounds.", Remedy: "Fix the named parameter."},
	}},
	{Title: "Authentication and limits", Entries: []Entry{
		{Code: CodeMissingAPIKey, Kind: Unauthorized, Meaning: "No `Authorization: Bearer ll_…` header.", Remedy: "Send the agent's API key."},
		{Code: CodeInvalidAPIKey, Kind: Unauthorized, Meaning: "The key is malformed or unknown.", Remedy: "Use the key the device flow returned; link again if it is lost."},
		{Code: CodeKeyRevoked, Kind: Unauthorized, Meaning: "The key or its agent was revoked.", Remedy: "Stop; the user must link the agent again."},
		{Code: CodeAgentPaused, Kind: Unauthorized, Meaning: "The user paused the agent.", Remedy: "Wait until the user resumes it in the dashboard."},
		{Code: CodeInsufficientScope, Kind: Forbidden, Meaning: "The key lacks the scope the endpoint requires (`read`, `trade`, `cancel`, `redeem`).", Remedy: "Use a key with that scope."},
		{Code: CodeRateLimiterUnavailable, Kind: Transient, Meaning: "The shared rate-limit store cannot be reached and the service refuses requests rather than let them through unlimited.", Remedy: "Retry after `retryAfter` seconds."},
		{Code: CodeUnvouchedRequest, Kind: Forbidden, Meaning: "A request reached a workflow without the proof the service's authenticated path attaches (a request forged through Temporal, or made under a master key the service no longer holds).", Remedy: "Send the request through the API; report it with the request id if it came from there."},
	}},
	{Title: "Idempotency-Key", Entries: []Entry{
		{Code: CodeInvalidIdempotencyKey, Kind: Invalid, Meaning: "The `Idempotency-Key` header is empty, repeated, longer than 255 characters or not printable ASCII.", Remedy: "Send one key of 1–255 printable ASCII characters, e.g. a UUID."},
		{Code: CodeIdempotencyKeyReused, Kind: Conflict, Meaning: "The key was used with a different request: 422 from the Idempotency-Key layer (another body, path or query), 409 from the order path (the key's order is a different order).", Remedy: "Use a new key for a different request."},
		{Code: CodeIdempotencyInFlight, Kind: Conflict, Meaning: "A request with this key is still running.", Remedy: "Retry after `Retry-After` seconds to get its response."},
		{Code: CodeIdempotencyContention, Kind: Transient, Meaning: "The key is changing hands between two requests at this moment.", Remedy: "Retry."},
	}},
	{Title: "Device linking", Entries: []Entry{
		{Code: CodeAuthorizationPending, Kind: Invalid, Meaning: "Token endpoint (in `error`): the user has not decided yet.", Remedy: "Poll again after `interval` seconds."},
		{Code: CodeSlowDown, Kind: Invalid, Meaning: "Token endpoint (in `error`): polled sooner than `interval` after the previous poll.", Remedy: "Wait longer between polls (add 5 s)."},
		{Code: CodeExpiredToken, Kind: Invalid, Also: []Kind{Conflict}, Meaning: "The device code expired before the key was fetched (token endpoint, 400 in `error`), or a decision came after expiry (link page and admin, 409).", Remedy: "Start again with `POST /api/auth/device`."},
		{Code: CodeAccessDenied, Kind: Invalid, Meaning: "Token endpoint (in `error`): the user denied the link, or revoked the agent before its key was fetched.", Remedy: "Stop."},
		{Code: CodeInvalidGrant, Kind: Invalid, Meaning: "Token endpoint (in `error`): unknown or malformed `device_code`.", Remedy: "Stop; start again with `POST /api/auth/device`."},
		{Code: CodeAlreadyIssued, Kind: Invalid, Meaning: "Token endpoint (in `error`): the key was returned by an earlier poll and is never shown again.", Remedy: "Use the key already received; if it is lost, link again."},
		{Code: CodeInvalidRequest, Kind: Invalid, Meaning: "Token endpoint (in `error`): `device_code` is missing.", Remedy: "Send the `device_code` query parameter."},
		{Code: CodeInvalidAgentName, Kind: Invalid, Meaning: "`agent_name` is not 1–64 letters, digits, spaces, `-`, `_` or `.`.", Remedy: "Choose a valid name."},
		{Code: CodeInvalidUserCode, Kind: NotFound, Meaning: "Link page and admin: no pending link has this user code.", Remedy: "Check the code the agent shows."},
		{Code: CodeCodeAlreadyUsed, Kind: Conflict, Meaning: "Link page and admin: the code was already approved or denied, or is being decided right now.", Remedy: "Nothing to do; ask the agent to link again if needed."},
		{Code: CodeDeviceLinkState, Kind: Conflict, Meaning: "The device link is no longer in the state the operation needs (a race with expiry or another decision).", Remedy: "Reload; ask the agent to link again if needed."},
		{Code: CodeDeviceLinkNotExpired, Kind: Transient, Meaning: "The device link's expiry was asked for before its stored deadline (internal: the workflow retries at the deadline).", Remedy: "None."},
		{Code: CodeReviewRequired, Kind: Invalid, Meaning: "Link page: an approve or deny did not come from the confirmation page of this very link (its `confirm` token is missing or belongs to another link).", Remedy: "Open `/link?code=…`, check what asks for access, and decide on that page."},
		{Code: CodeTooManyAttempts, Kind: RateLimited, Meaning: "Too many failed attempts from this client address (an IPv6 client per /64) or for this account: invalid API keys on the agent API, wrong codes or passwords on the link page, wrong credentials on the dashboard's sign-in forms.", Remedy: "Wait `Retry-After` seconds; a valid key or the right password is refused too until then."},
	}},
	{Title: "Market data", Entries: []Entry{
		{Code: CodeInvalidID, Kind: Invalid, Meaning: "The market id is neither a numeric market id nor a 0x condition id.", Remedy: "Use `id` or `conditionId` from a search."},
		{Code: CodeInvalidSlug, Kind: Invalid, Meaning: "The slug is missing.", Remedy: "Send `slug`."},
		{Code: CodeInvalidTokenID, Kind: Invalid, Meaning: "A token id is missing or not a decimal number.", Remedy: "Use token ids from `clobTokenIds` or `tokens`."},
		{Code: CodeTooManyTokens, Kind: Invalid, Meaning: "`token_ids` names more than 20 tokens.", Remedy: "Split the request."},
		{Code: CodeInvalidAsset, Kind: Invalid, Meaning: "Unsupported crypto asset.", Remedy: "Use btc, eth, sol, xrp, doge or matic."},
		{Code: CodeInvalidTimeframe, Kind: Invalid, Meaning: "Unsupported crypto timeframe.", Remedy: "Use 5m, 15m, 4h, hourly or daily."},
		{Code: CodeNotFound, Kind: NotFound, Meaning: "The venue does not know the market, order or book asked for.", Remedy: "Check the id."},
		{Code: CodeMarketNotFound, Kind: NotFound, Meaning: "No market has this id or slug.", Remedy: "Search again."},
		{Code: CodeTokenNotFound, Kind: NotFound, Meaning: "No order book exists for the named token(s).", Remedy: "Check the token ids; a resolved market has no book."},
		{Code: CodeNoAcceptingMarket, Kind: NotFound, Meaning: "No crypto up/down window of this asset and timeframe accepts orders now or in the next two windows.", Remedy: "Retry later or use another timeframe."},
	}},
	{Title: "Orders", Entries: []Entry{
		{Code: CodeInvalidSide, Kind: Invalid, Meaning: "`side` is missing or not BUY or SELL.", Remedy: "Send BUY or SELL."},
		{Code: CodeInvalidPrice, Kind: Invalid, Meaning: "`price` is missing or outside 0.01–0.99.", Remedy: "Send a price from 0.01 to 0.99."},
		{Code: CodeInvalidSize, Kind: Invalid, Meaning: "`size` is missing, not positive, above 1,000,000,000, or has more than 2 decimals.", Remedy: "Send a positive number of shares with at most 2 decimals."},
		{Code: CodeInvalidOrderType, Kind: Invalid, Meaning: "`type` is not LIMIT, MARKET, FOK or FAK.", Remedy: "Use one of the four types."},
		{Code: CodeInvalidTickSize, Kind: Invalid, Also: []Kind{VenueRejected}, Meaning: "The price is not a multiple of the market's tick size (422 when the venue says so).", Remedy: "Round the price to `tickSize` (GET /market-data)."},
		{Code: CodeBelowMinSize, Kind: Invalid, Also: []Kind{VenueRejected}, Meaning: "A LIMIT order is below the market's minimum size, or a marketable BUY is worth less than $1 (422 when the venue says so).", Remedy: "Increase the size (`minOrderSize` in GET /market-data)."},
		{Code: CodeInvalidAmount, Kind: Invalid, Meaning: "An amount is negative, too large, rounds to zero or has too many decimals.", Remedy: "Fix the amount."},
		{Code: CodeInvalidAmounts, Kind: VenueRejected, Meaning: "The order's amounts break the venue's precision rules.", Remedy: "Use a size with at most 2 decimals and a price on the tick."},
		{Code: CodeInvalidExpiration, Kind: Invalid, Meaning: "A GTD order must expire more than a minute from now.", Remedy: "Use a later expiration."},
		{Code: CodeInvalidPostOnly, Kind: Invalid, Meaning: "Post-only is not supported for FOK/FAK orders.", Remedy: "Use a LIMIT order."},
		{Code: CodeInvalidOrderPayload, Kind: Invalid, Meaning: "The signed venue order is malformed (an amount or token id out of range).", Remedy: "Report it with the request id; the service built the order."},
		{Code: CodeInvalidSignatureType, Kind: Invalid, Meaning: "The wallet's signature type is not supported by the venue.", Remedy: "Report it with the request id."},
		{Code: CodeSignerMismatch, Kind: Invalid, Also: []Kind{VenueDenied}, Meaning: "The order's signer does not match the wallet or the venue API key (502 when the venue says so).", Remedy: "Re-import the wallet with the key that owns it."},
		{Code: CodeTooManyOrders, Kind: Invalid, Meaning: "More orders in one venue batch than it accepts.", Remedy: "Send fewer orders at once."},
		{Code: CodeInvalidStatus, Kind: Invalid, Meaning: "The `status` filter is not one of the listed values.", Remedy: "Use a documented status."},
		{Code: CodeUnknownToken, Kind: NotFound, Meaning: "No market trades this token.", Remedy: "Take token ids from GET /markets/search or GET /markets/{id}."},
		{Code: CodeNoWallet, Kind: NotFound, Also: []Kind{Conflict}, Meaning: "The user has no trading wallet imported (404 on reads and approvals, 409 when an order needs it).", Remedy: "The user imports a wallet in the dashboard."},
		{Code: CodeInsufficientBalance, Kind: Conflict, Meaning: "The wallet holds less collateral (BUY) or fewer shares (SELL) than the order needs.", Remedy: "Fund the wallet or lower the size."},
		{Code: CodeAllowanceError, Kind: Conflict, Meaning: "The exchange may not spend the wallet's collateral or move its outcome tokens.", Remedy: "`POST /wallet/approve` with the token the hint names, then retry."},
		{Code: CodeBudgetExceeded, Kind: Conflict, Meaning: "The order's cost does not fit the agent's budget.", Remedy: "GET /budget shows the limits; lower the size."},
		{Code: CodeInsufficientPosition, Kind: Conflict, Meaning: "A SELL is larger than this agent's own open position in the token, less what its open sell orders already offer (shares other agents of the wallet bought are not its to sell).", Remedy: "GET /positions shows the agent's shares; sell fewer, or cancel an open SELL order first."},
		{Code: CodeAgentInactive, Kind: Conflict, Meaning: "The agent is paused or revoked: nothing is placed in its name, and its strategies do not resume, until the user resumes it.", Remedy: "Wait until the user resumes it."},
		{Code: CodeControlPending, Kind: Transient, Meaning: "The user's pause, resume or revoke of an agent is recorded (its key and its orders obey it at once) but its strategies and orders could not be reached yet (dashboard and admin commands only).", Remedy: "Do it again in a moment."},
		{Code: CodeNoMatch, Kind: VenueRejected, Meaning: "The book cannot fill a MARKET/FOK order within its price.", Remedy: "Use a LIMIT order to rest, or FAK to take what is there."},
		{Code: CodeOrderNotCancellable, Kind: Conflict, Meaning: "Only PENDING, OPEN and PARTIALLY_FILLED orders can be cancelled.", Remedy: "Nothing to cancel; GET /orders/{id} shows the order."},
		{Code: CodeCancelInProgress, Kind: Transient, Meaning: "The cancel has not completed within the request's time (the order is being posted, or no worker runs).", Remedy: "Send DELETE /orders/{id} again in a few seconds."},
		{Code: CodeCancelUnconfirmed, Kind: Transient, Meaning: "The venue still shows the order open after the cancel; it stays OPEN and followed.", Remedy: "Send DELETE /orders/{id} again."},
		{Code: CodePostInFlight, Kind: Transient, Meaning: "A post of the order may still reach the venue; the order is settled once that is known.", Remedy: "Retry; the service retries it itself."},
		{Code: CodeUnknownOutcome, Kind: Transient, Meaning: "The order was possibly delivered but no answer came back.", Remedy: "The service reconciles by the order's hash before posting again; poll GET /orders/{id}."},
		{Code: CodeOrderState, Kind: Conflict, Meaning: "The order's state changed under the operation (it is being posted, or already final).", Remedy: "GET /orders/{id} and decide again."},
		{Code: CodeOrderWorkflowNotFound, Kind: NotFound, Meaning: "The order has no running workflow (internal; the cancel path then cancels it directly).", Remedy: "None."},
		{Code: CodeReservationRef, Kind: Conflict, Meaning: "A budget reservation reference is already used (internal).", Remedy: "None."},
	}},
	{Title: "Positions", Entries: []Entry{
		{Code: CodePositionNotFound, Kind: NotFound, Meaning: "No such position, or another agent's.", Remedy: "Take ids from GET /positions."},
		{Code: CodePositionClosed, Kind: Conflict, Meaning: "The position is already closed (size 0).", Remedy: "Nothing to sell."},
		{Code: CodePositionResolved, Kind: Conflict, Meaning: "The market resolved; the position can no longer be sold.", Remedy: "Redeem it with POST /settlements/redeem."},
		{Code: CodePositionInOrders, Kind: Conflict, Meaning: "All shares of the position are already offered by the agent's open sell orders.", Remedy: "Cancel them (DELETE /orders/{id}) to close at once, or wait for them to fill."},
		{Code: CodeNoBids, Kind: Conflict, Meaning: "The market has no bids to sell into.", Remedy: "Retry later, or close with type LIMIT once there are bids."},
		{Code: CodeInvalidClose, Kind: Invalid, Meaning: "`type` is not MARKET, FOK or LIMIT, or `slippage` is outside 0–1.", Remedy: "Fix the body."},
	}},
	{Title: "Strategies", Entries: []Entry{
		{Code: CodeInvalidStrategyType, Kind: Invalid, Meaning: "`type` is not a strategy type.", Remedy: "Use PRICE_ALERT, RECURRING_BUY, BUY_LOW_SELL_HIGH or COPY_TRADE."},
		{Code: CodeInvalidMarketSelector, Kind: Invalid, Meaning: "The config names no market or both a `tokenId` and a `marketQuery`.", Remedy: "Give exactly one of `tokenId` and `marketQuery`."},
		{Code: CodeInvalidTriggerCondition, Kind: Invalid, Meaning: "`triggerCondition` is not PRICE_LTE or PRICE_GTE.", Remedy: "Fix the condition."},
		{Code: CodeInvalidTriggerPrice, Kind: Invalid, Meaning: "`triggerPrice` is missing or not strictly between 0 and 1.", Remedy: "Give a price in (0, 1)."},
		{Code: CodeInvalidInterval, Kind: Invalid, Meaning: "RECURRING_BUY needs one of `intervalMs` (at least 60000) and `interval` (\"15m\", \"1h\", \"1d\"), at most 30 days.", Remedy: "Fix the interval."},
		{Code: CodeInvalidOutcome, Kind: Invalid, Meaning: "`outcome` is not Yes or No, or is missing where a `marketQuery` needs it.", Remedy: "Give Yes or No (Up is Yes, Down is No)."},
		{Code: CodeInvalidStrategyAmount, Kind: Invalid, Meaning: "A size or amount is missing, not positive, too large or too precise, or `maxOpenSize` is below `sizePerTrade`.", Remedy: "Give positive amounts with at most 6 decimals."},
		{Code: CodeInvalidPriceBand, Kind: Invalid, Meaning: "`buyBelow`, `sellAbove` or `priceLimit` is not in (0, 1), or `sellAbove` is not above `buyBelow`.", Remedy: "Fix the prices."},
		{Code: CodeInvalidMaxBudget, Kind: Invalid, Meaning: "`maxBudget` is missing or not a positive USDC amount.", Remedy: "Every strategy needs a positive budget."},
		{Code: CodeInvalidExpiry, Kind: Invalid, Meaning: "`expiresAt` is not in the future or more than 30 days ahead.", Remedy: "Extend by at most 30 days from now; extend again later."},
		{Code: CodeStrategyTypeImmutable, Kind: Invalid, Meaning: "A PATCH tried to change the strategy's type.", Remedy: "Cancel it and create a strategy of the other type."},
		{Code: CodeStrategyLimit, Kind: Conflict, Meaning: "The agent already has 10 strategies that are ACTIVE, PAUSED or ERROR.", Remedy: "Cancel one (DELETE /strategies/{id}) first."},
		{Code: CodeStrategyFinal, Kind: Conflict, Meaning: "The strategy is COMPLETED or CANCELLED, which is final.", Remedy: "Create a new strategy."},
		{Code: CodeMarketQueryUnresolved, Kind: NotFound, Meaning: "No market accepting orders matches the `marketQuery`.", Remedy: "Search with GET /markets/search, or give a `tokenId`."},
		{Code: CodeStrategyNotFound, Kind: NotFound, Meaning: "No strategy of this agent (or user) has this id.", Remedy: "List them with GET /strategies."},
		{Code: CodeInvalidTargetAddress, Kind: Invalid, Meaning: "COPY_TRADE's `targetAddress` is missing or not a 0x-prefixed 20-byte address (or is the zero address).", Remedy: "Give the wallet to copy: the address that trades on the venue (its proxy, Safe or deposit wallet, or its EOA)."},
		{Code: CodeCopyOwnWallet, Kind: Invalid, Meaning: "COPY_TRADE's `targetAddress` is the user's own wallet: its EOA, its proxy or Safe, or its deposit wallet (self-copy).", Remedy: "Copy another wallet."},
		{Code: CodeCopyTargetImmutable, Kind: Invalid, Meaning: "A PATCH tried to change a COPY_TRADE's `targetAddress`.", Remedy: "Cancel it and create a strategy that copies the other wallet."},
		{Code: CodeStrategyTokenInUse, Kind: Conflict, Meaning: "A PATCH tried to change the market (`tokenId` or `marketQuery`) of a BUY_LOW_SELL_HIGH or PRICE_ALERT that holds shares of its token or has live orders of it: the strategy would leave them behind.", Remedy: "Sell the shares and cancel the orders first (or let the strategy sell them), or create a new strategy for the other market."},
		{Code: CodeInvalidSizingMode, Kind: Invalid, Meaning: "`sizingMode` is not fixed or proportional, or the field its mode needs is missing, or the other mode's field is given.", Remedy: "fixed with `fixedAmount`, or proportional with `proportionPct`."},
		{Code: CodeInvalidProportion, Kind: Invalid, Meaning: "`proportionPct` is not between 1 and 100 (at most 6 decimals).", Remedy: "Give a percentage from 1 to 100."},
		{Code: CodeInvalidCopySells, Kind: Invalid, Meaning: "COPY_TRADE's `copySells` is missing or not a boolean.", Remedy: "Send true to mirror sells too, false for buys only."},
		{Code: CodeStrategyInfeasible, Kind: Invalid, Meaning: "The strategy could never place its order: one order costs more than `maxBudget` (for example `size` × the alert's worst price, `sizePerTrade` × `buyBelow`), or is below the venue's $1 minimum for a market buy or the market's minimum order size. The message names the numbers and what would fit.", Remedy: "Raise `maxBudget`, or change the size or amount as the message says."},
		{Code: CodeStrategyMarketClosed, Kind: Conflict, Meaning: "The strategy's `tokenId` belongs to a market that no longer accepts orders (closed or resolved).", Remedy: "Choose a market that trades (GET /markets/search), or give a `marketQuery`."},
		{Code: CodeInvalidBacktestWindow, Kind: Invalid, Meaning: "A backtest's `from`/`to` are missing, not in order, in the future, or more than 30 days apart, or `startingBalance` is not a positive USDC amount.", Remedy: "Give a window of at most 30 days that has passed, and a positive starting balance."},
		{Code: CodeNoPriceHistory, Kind: NotFound, Meaning: "The venue has no price history of the strategy's token over the backtest's window (or, for COPY_TRADE, no history of the markets the target traded).", Remedy: "Pick a window in which the market traded, or another market."},
		{Code: CodeInvalidTokenFilter, Kind: Invalid, Meaning: "`tokenFilter` holds something that is not a token id, a duplicate, or more than 100 ids.", Remedy: "Give up to 100 distinct decimal token ids, or leave it out to copy every token."},
	}},
	{Title: "Wallet approvals and redemptions", Entries: []Entry{
		{Code: CodeInvalidToken, Kind: Invalid, Meaning: "`token` is missing or not USDC, CTF, NEG_RISK or all.", Remedy: "Send one of the four values."},
		{Code: CodeInvalidConditionID, Kind: Invalid, Meaning: "`conditionId` is not 0x followed by 64 hex digits.", Remedy: "Use `conditionId` from the market."},
		{Code: CodeSettlementInProgress, Kind: Conflict, Meaning: "Another operation on the wallet kept running.", Remedy: "Retry shortly."},
		{Code: CodeSettlementPending, Kind: Transient, Meaning: "The approval or redemption still runs after 45 s (slow chain) and goes on.", Remedy: "Send the same request again after `retryAfter` seconds to get its result."},
		{Code: CodeWalletChanged, Kind: Conflict, Meaning: "The wallet was replaced or removed while the operation ran.", Remedy: "Retry with the current wallet."},
		{Code: CodeWalletNotDeployed, Kind: Conflict, Meaning: "The proxy or Safe wallet is not deployed on chain yet.", Remedy: "Deploy it (one venue login does), then retry."},
		{Code: CodeApprovalRequired, Kind: VenueRejected, Meaning: "The redeem contract may not move the wallet's outcome tokens; nothing was sent.", Remedy: "`POST /wallet/approve` with the token the hint names, then redeem again."},
		{Code: CodeInsufficientGas, Kind: VenueRejected, Meaning: "The key's address has no gas to pay for the transaction.", Remedy: "Fund the wallet's owner address with the chain's gas token."},
		{Code: CodeReverted, Kind: VenueRejected, Meaning: "The chain refused the transaction.", Remedy: "Check approvals and balances; retrying unchanged fails again."},
		{Code: CodeNotResolved, Kind: Conflict, Meaning: "The market is not resolved yet.", Remedy: "Redeem after the market resolves."},
		{Code: CodeReceiptTimeout, Kind: Transient, Meaning: "A transaction was sent but not mined in time.", Remedy: "Retry the same request; a mined transaction is not sent twice."},
	}},
	{Title: "Venue answers (passed on from the exchange)", Entries: []Entry{
		{Code: CodeVenueRejected, Kind: VenueRejected, Also: []Kind{Invalid}, Meaning: "The venue refused the request for a reason without a more specific code; the message is the venue's.", Remedy: "Read the message; do not retry unchanged."},
		{Code: CodeVenueUnavailable, Kind: Transient, Meaning: "The venue answered 5xx.", Remedy: "Retry later."},
		{Code: CodeVenueTimeout, Kind: Transient, Meaning: "The venue did not answer in time.", Remedy: "Retry later."},
		{Code: CodeVenueUnreachable, Kind: Transient, Meaning: "The venue could not be reached.", Remedy: "Retry later."},
		{Code: CodeEngineRestarting, Kind: Transient, Meaning: "The venue's matching engine is restarting.", Remedy: "Retry after a few seconds."},
		{Code: CodeMarketNotReady, Kind: Transient, Meaning: "The market does not take orders yet.", Remedy: "Retry later."},
		{Code: CodeTradingDisabled, Kind: Transient, Meaning: "Trading is currently disabled on the venue.", Remedy: "Retry later."},
		{Code: CodeRateLimited, Kind: RateLimited, Meaning: "The venue's rate limit was hit.", Remedy: "Wait `retryAfter` seconds."},
		{Code: CodeVenueUnauthorized, Kind: VenueDenied, Meaning: "The venue refused the service's credentials (its 401): the agent's own key is fine.", Remedy: "Retry; the service derives new venue credentials for a wallet. Report it with the request id if it persists."},
		{Code: CodeVenueForbidden, Kind: VenueDenied, Meaning: "The venue refused the service access (its 403) without a more specific reason.", Remedy: "Report it with the request id."},
		{Code: CodeInsufficientBalanceOrAllowance, Kind: VenueRejected, Meaning: "The venue says the wallet lacks balance or allowance.", Remedy: "Fund the wallet or `POST /wallet/approve` as the hint says."},
		{Code: CodeInvalidSignature, Kind: VenueRejected, Meaning: "The venue refused the order's signature.", Remedy: "Report it with the request id."},
		{Code: CodeGeoblocked, Kind: VenueDenied, Meaning: "The venue restricts access from the service's location.", Remedy: "None from the agent."},
		{Code: CodeAddressBanned, Kind: VenueDenied, Meaning: "The venue banned the wallet's address.", Remedy: "None from the agent."},
		{Code: CodeClosedOnly, Kind: VenueDenied, Meaning: "The wallet may only close positions on the venue.", Remedy: "Only sell."},
		{Code: CodeCancelOnly, Kind: VenueRejected, Meaning: "The venue accepts cancels only, for now.", Remedy: "Retry later."},
		{Code: CodePostOnlyMode, Kind: VenueRejected, Meaning: "The venue accepts post-only orders only, for now.", Remedy: "Retry later or rest a LIMIT order that does not cross."},
		{Code: CodePostOnlyRejected, Kind: VenueRejected, Meaning: "A post-only order would have crossed the book.", Remedy: "Price it so it rests."},
		{Code: CodeCrossesBook, Kind: VenueRejected, Meaning: "The order crosses the book where it must not.", Remedy: "Reprice it."},
		{Code: CodeFOKNotFilled, Kind: VenueRejected, Meaning: "A FOK order could not be filled entirely.", Remedy: "Use FAK or LIMIT, or a worse price."},
		{Code: CodeFAKNoMatch, Kind: VenueRejected, Meaning: "A FAK order found nothing to match.", Remedy: "Use a LIMIT order or another price."},
		{Code: CodeDuplicateOrder, Kind: Conflict, Meaning: "The venue already has this exact order.", Remedy: "GET /orders/{id} shows it."},
		{Code: CodeOrderCanceled, Kind: Conflict, Meaning: "The order was already cancelled on the exchange.", Remedy: "GET /orders/{id} shows it."},
		{Code: CodeOrderVersionMismatch, Kind: VenueRejected, Meaning: "The venue expects another version of the signed order.", Remedy: "Report it with the request id."},
		{Code: CodeRoundingError, Kind: VenueRejected, Meaning: "The venue refused the order's rounding.", Remedy: "Use a size with at most 2 decimals."},
		{Code: CodePriceDiscrepancy, Kind: VenueRejected, Meaning: "The order's price is too far from the venue's.", Remedy: "Reprice from GET /prices."},
		{Code: CodeOwnerMismatch, Kind: VenueDenied, Meaning: "The order's owner is not the venue API key's owner.", Remedy: "Report it with the request id."},
		{Code: CodeInvalidL1Headers, Kind: VenueDenied, Meaning: "The venue refused the wallet's signed authentication headers.", Remedy: "Report it with the request id."},
		{Code: CodeNoAPIKey, Kind: VenueDenied, Meaning: "The wallet has no venue API credentials for this call.", Remedy: "Retry; the service derives them."},
		{Code: CodeEmptySecret, Kind: VenueDenied, Meaning: "The stored venue API secret is empty.", Remedy: "Report it with the request id."},
		{Code: CodeInvalidSecret, Kind: VenueDenied, Meaning: "The stored venue API secret is not valid base64.", Remedy: "Report it with the request id."},
		{Code: CodeAPIKeyCreateFailed, Kind: VenueRejected, Also: []Kind{Conflict}, Meaning: "The venue did not create API credentials for the wallet.", Remedy: "Retry later."},
		{Code: CodeAPIKeyNotFound, Kind: NotFound, Meaning: "The venue has no API credentials to derive for the wallet.", Remedy: "Retry; the service creates them."},
		{Code: CodePaginationOverflow, Kind: Transient, Meaning: "A venue listing did not end.", Remedy: "Retry later."},
	}},
	{Title: "Dashboard and administration", Entries: []Entry{
		{Code: CodeInvalidEmail, Kind: Invalid, Meaning: "Not a valid email address.", Remedy: "Fix the address."},
		{Code: CodeInvalidPassword, Kind: Invalid, Meaning: "The password is too short or too long.", Remedy: "Choose a password of the allowed length."},
		{Code: CodeEmailTaken, Kind: Conflict, Meaning: "A user with this email already exists.", Remedy: "Sign in instead."},
		{Code: CodeInvalidCredentials, Kind: Unauthorized, Meaning: "Wrong email or password.", Remedy: "Try again."},
		{Code: CodeAmbiguousAgent, Kind: Conflict, Meaning: "Several agents have this name.", Remedy: "Name the agent by its id."},
		{Code: CodeAgentRevoked, Kind: Conflict, Meaning: "The agent has been revoked; revocation is final.", Remedy: "Link a new agent."},
		{Code: CodeInvalidBudget, Kind: Invalid, Meaning: "A budget amount or percentage is out of range.", Remedy: "Amounts positive up to 1,000,000,000 USDC; percentages 0.01–100."},
		{Code: CodeInvalidMode, Kind: Invalid, Meaning: "An agent's mode must be paper or live.", Remedy: "Choose paper (simulated money against the real book) or live (the wallet's money)."},
		{Code: CodeInvalidHeartbeat, Kind: Invalid, Meaning: "Heartbeat interval or active hours are invalid.", Remedy: "Interval 10 seconds to 1 day; active hours as distinct HH:MM start and end with an IANA time zone."},
		{Code: CodeInvalidRateLimit, Kind: Invalid, Meaning: "The per-key rate limit is outside 1–10000 per minute.", Remedy: "Choose a value in range."},
		{Code: CodeInvalidPrivateKey, Kind: Invalid, Meaning: "The private key is not 64 hex digits.", Remedy: "Paste the wallet's private key (0x optional)."},
		{Code: CodeInvalidAddress, Kind: Invalid, Meaning: "The address is not a 0x-prefixed 20-byte hex address.", Remedy: "Fix the address."},
		{Code: CodeWalletNotOwned, Kind: Invalid, Meaning: "The wallet address does not belong to the private key.", Remedy: "Give the proxy/Safe address of this key's venue account, or none."},
		{Code: CodeWalletInUse, Kind: Conflict, Meaning: "Another account already imported this wallet.", Remedy: "Use another wallet."},
		{Code: CodeSafeThreshold, Kind: Invalid, Meaning: "Only 1-of-1 Safes can trade.", Remedy: "Use a 1-of-1 Safe or a proxy wallet."},
		{Code: CodeStrategyState, Kind: Conflict, Meaning: "The strategy's state forbids the operation.", Remedy: "Reload the strategy and decide again."},
		{Code: CodeTwoFactorRequired, Kind: Forbidden, Meaning: "Importing a wallet's private key needs two-step verification on the account (unless the operator relaxed it with `--wallet-import-without-2fa`).", Remedy: "Turn on two-step verification on the Security page, then import the wallet."},
		{Code: CodeInvalidWebhookURL, Kind: Invalid, Meaning: "The notification webhook URL is not an absolute https URL of a public host (plain http and private addresses only where the operator allows them).", Remedy: "Give the https address your chat or email tool's incoming webhook shows."},
	}},
	{Title: "Sign-in and account security (link page and dashboard)", Entries: []Entry{
		{Code: CodeServerBusy, Kind: Transient, Meaning: "Too many password checks run at once (each takes 64 MiB); the attempt was not made.", Remedy: "Retry after `Retry-After` seconds."},
		{Code: CodeWrongPassword, Kind: Unauthorized, Meaning: "The current password given to change it is not right.", Remedy: "Enter the current password again."},
		{Code: CodeSignupClosed, Kind: Forbidden, Meaning: "The service does not take new accounts (`--signup closed`).", Remedy: "Ask the operator for an account."},
		{Code: CodeInviteRequired, Kind: Forbidden, Meaning: "Sign-up needs an invite on this service (`--signup invite`).", Remedy: "Use the invite link the operator sent."},
		{Code: CodeInvalidInvite, Kind: Forbidden, Meaning: "The invite is unknown, expired, used, or for another email.", Remedy: "Ask the operator for a new invite."},
		{Code: CodeTwoFactorEnabled, Kind: Conflict, Meaning: "Two-step verification is already on.", Remedy: "Turn it off first to set it up again."},
		{Code: CodeTwoFactorState, Kind: Conflict, Meaning: "No authenticator set-up is waiting for confirmation (or it was already confirmed).", Remedy: "Start the set-up again."},
		{Code: CodeTwoFactorDisabled, Kind: Conflict, Meaning: "Two-step verification is not on for this account.", Remedy: "Turn it on first."},
		{Code: CodeInvalidCode, Kind: Unauthorized, Meaning: "The authenticator or backup code is wrong.", Remedy: "Check the authenticator app's current code and try again."},
		{Code: CodeCodeReplayed, Kind: Unauthorized, Meaning: "This authenticator code was already used.", Remedy: "Wait for the next code."},
		{Code: CodeBackupCodeUsed, Kind: Unauthorized, Meaning: "This backup code was already used; each works once.", Remedy: "Use another of your backup codes, or the authenticator app."},
		{Code: CodeTOTPReplayed, Kind: Conflict, Meaning: "An authenticator code was recorded as used twice at once (the losing attempt of a race).", Remedy: "Wait for the next code."},
		{Code: CodeStepUpRequired, Kind: Forbidden, Meaning: "The action needs a fresh second factor (within the last 10 minutes).", Remedy: "Confirm it's you with the authenticator, a backup code or a passkey, then repeat the action."},
		{Code: CodeNoCeremony, Kind: Invalid, Meaning: "A passkey answer came without a passkey request in progress for this session (or after it was used).", Remedy: "Start the passkey step again."},
		{Code: CodeInvalidPasskeyName, Kind: Invalid, Meaning: "A passkey name must be 1 to 64 characters.", Remedy: "Choose another name."},
		{Code: CodePasskeyExists, Kind: Conflict, Meaning: "This passkey is already registered.", Remedy: "Use it to sign in."},
		{Code: CodePasskeyFailed, Kind: Unauthorized, Meaning: "The passkey's answer could not be verified.", Remedy: "Try again, or sign in another way."},
		{Code: CodeNoPasskey, Kind: NotFound, Meaning: "The account has no passkey.", Remedy: "Sign in another way."},
		{Code: CodeUnknownProvider, Kind: NotFound, Meaning: "No OpenID provider of this name is configured.", Remedy: "Use a sign-in button the page shows."},
		{Code: CodeOIDCFailed, Kind: Unauthorized, Meaning: "The OpenID sign-in could not be completed (state, nonce or token refused).", Remedy: "Start the sign-in again."},
		{Code: CodeEmailNotVerified, Kind: Forbidden, Meaning: "The provider did not confirm the identity's email address.", Remedy: "Verify the email with the provider, or sign in another way."},
		{Code: CodeEmailMismatch, Kind: Forbidden, Meaning: "The identity's email belongs to another account than the one signed in.", Remedy: "Sign in to the account with that email."},
		{Code: CodeIdentityLinked, Kind: Conflict, Meaning: "This provider identity is already linked to an account.", Remedy: "Sign in with it, or unlink it there first."},
		{Code: CodeLastSignInMethod, Kind: Conflict, Meaning: "Removing this would leave the account no way to sign in.", Remedy: "Set a password or add a passkey first."},
	}},
}

var index = sync.OnceValue(func() map[string]Entry {
	m := map[string]Entry{}
	for _, g := range catalogue {
		for _, e := range g.Entries {
			m[e.Code] = e
		}
	}
	return m
})

// Catalogue returns the error catalogue, group by group.
func Catalogue() []Group {
	out := make([]Group, len(catalogue))
	for i, g := range catalogue {
		out[i] = Group{Title: g.Title, Entries: slices.Clone(g.Entries)}
	}
	return out
}

// Lookup returns the catalogue entry of code.
func Lookup(code string) (Entry, bool) {
	e, ok := index()[code]
	return e, ok
}

// Codes returns every code of the catalogue, in catalogue order.
func Codes() []string {
	var out []string
	for _, g := range catalogue {
		for _, e := range g.Entries {
			out = append(out, e.Code)
		}
	}
	return out
}
