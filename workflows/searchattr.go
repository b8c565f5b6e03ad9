// Package workflows holds the service's Temporal workflows and the
// conventions every workflow follows: one task queue, workflow ids derived
// from business ids, typed search attributes and a human-readable memo.
package workflows

import (
	"fmt"
	"strings"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"

	"github.com/agent-trading/ats/models/errs"
)

// TaskQueue is the task queue every workflow and activity of the service
// runs on. One queue keeps deployment simple (one worker type, one
// readiness check); split only when a class of work needs its own
// concurrency limits or hosts.
const TaskQueue = "ats-main"

// OrderTaskQueue is the task queue of the order workflows (and of their
// activities) started since it exists; those started before stay on
// TaskQueue, where every worker still runs them. Orders have a queue of
// their own so that a process that places orders and runs no other
// workflow (`ats api`) can run a worker for them alone, whose first
// workflow task the server hands back with the start (eager start:
// docs/benchmarks.md, "The split deployment"), and so that placements
// never queue behind the strategies' activities for a worker's slots.
const OrderTaskQueue = "ats-orders"

// Custom search attributes. All are Keyword (exact match; the SQLite dev
// server has 10 Keyword slots per namespace, 8 are used here). They are
// stored and indexed in plain text: ids and states only, never secrets or
// amounts that identify a user's position.
var (
	// SAUserID is the id of the user a workflow acts for.
	SAUserID = temporal.NewSearchAttributeKeyKeyword("UserId")
	// SAAgentID is the id of the agent that started the workflow.
	SAAgentID = temporal.NewSearchAttributeKeyKeyword("AgentId")
	// SAStrategyType is the strategy's type: PRICE_ALERT, RECURRING_BUY,
	// BUY_LOW_SELL_HIGH or COPY_TRADE (the spec's strategy types).
	SAStrategyType = temporal.NewSearchAttributeKeyKeyword("StrategyType")
	// SAStrategyStatus is a strategy's lifecycle state: ACTIVE, PAUSED,
	// ERROR, COMPLETED or CANCELLED.
	SAStrategyStatus = temporal.NewSearchAttributeKeyKeyword("StrategyStatus")
	// SATokenID is the outcome token (CLOB token id) a workflow trades.
	SATokenID = temporal.NewSearchAttributeKeyKeyword("TokenId")
	// SAOrderStatus is an order workflow's current order status.
	SAOrderStatus = temporal.NewSearchAttributeKeyKeyword("OrderStatus")
	// SAWorkflowKind is the Kind of a workflow, so the UI can filter
	// "all strategies" without prefix queries on the workflow id.
	SAWorkflowKind = temporal.NewSearchAttributeKeyKeyword("WorkflowKind")
	// SAMode is "paper" or "live" (models.ModePaper, models.ModeLive): the
	// mode of the agent a workflow acts for, so operators tell simulated
	// from real money in the Web UI (Mode = "paper"). Set at start; an
	// agent's mode never changes.
	SAMode = temporal.NewSearchAttributeKeyKeyword("Mode")
)

// MemoMode is the memo key holding the mode ("paper" or "live") of the
// agent a workflow acts for, shown beside the summary in the Web UI.
const MemoMode = "mode"

// withMode returns updates with the Mode search attribute of mode added;
// an empty mode (a placement decided before modes reached the workflows,
// whose recorded start carries none) adds nothing, so a replayed start is
// the one recorded. Every start that knows its agent's mode goes through
// it (StartSpec.Mode, the strategy's child orders).
func withMode(mode string, updates ...temporal.SearchAttributeUpdate) []temporal.SearchAttributeUpdate {
	if mode == "" {
		return updates
	}
	return append(updates, SAMode.ValueSet(mode))
}

// modeMemo adds the mode to memo as withMode does to search attributes.
func modeMemo(mode string, memo map[string]any) map[string]any {
	if mode != "" {
		memo[MemoMode] = mode
	}
	return memo
}

// SearchAttributes lists every custom search attribute the workflows use.
// The dev server is started with exactly these and
// devserver.EnsureSearchAttributes registers them on other clusters; a
// workflow using an unregistered key fails to start.
func SearchAttributes() []temporal.SearchAttributeKey {
	return []temporal.SearchAttributeKey{
		SAUserID, SAAgentID, SAStrategyType, SAStrategyStatus, SATokenID, SAOrderStatus, SAWorkflowKind, SAMode,
	}
}

// Kind is the kind of a workflow; it prefixes the workflow id and is stored
// in SAWorkflowKind.
type Kind string

// The workflow kinds.
const (
	KindOrder        Kind = "order"
	KindDeviceLink   Kind = "device-link"
	KindStrategy     Kind = "strategy"
	KindHousekeeping Kind = "housekeeping"
	KindApprove      Kind = "approve"
	KindRedeem       Kind = "redeem"
	// KindAgentControl applies an agent's status to what acts in its
	// name (AgentControl).
	KindAgentControl Kind = "agent-control"
	KindWebhook      Kind = "webhook"
)

// MemoSummary is the memo key holding a one-line human-readable summary of
// the workflow, shown in the Web UI.
const MemoSummary = "summary"

// WorkflowID is the workflow id of the workflow of the given kind for a
// business id: "<kind>/<business id>", e.g. "order/ord_123". Using the
// business id makes starts idempotent and lets the API address a workflow
// without storing run ids.
//
// A strategy's workflow id is its strategy id itself ("str_…", whose
// prefix already says what it is), so operators paste the id the API and
// the dashboard show straight into the Web UI.
func WorkflowID(kind Kind, businessID string) string {
	if kind == KindStrategy {
		return businessID
	}
	return string(kind) + "/" + businessID
}

// StartSpec describes a workflow start in business terms.
type StartSpec struct {
	// Kind and BusinessID form the workflow id.
	Kind       Kind
	BusinessID string
	// Summary is a one-line description for operators (memo and UI
	// summary). It is stored in plain text: never put secrets in it.
	Summary string
	// SearchAttributes are set on start in addition to SAWorkflowKind,
	// e.g. SAUserID.ValueSet(userID).
	SearchAttributes []temporal.SearchAttributeUpdate
	// Mode is the mode of the agent the workflow acts for (SAMode and
	// the memo's MemoMode); empty where none is known.
	Mode string
}

// StartOptions builds the StartWorkflowOptions for spec: workflow id from
// the business id, TaskQueue, search attributes (always including
// SAWorkflowKind), and the memo. A start whose id is already running
// returns serviceerror.WorkflowExecutionAlreadyStarted (temporalerr.From
// maps it to errs.Conflict) instead of silently returning the running
// workflow, so callers notice duplicates.
func StartOptions(spec StartSpec) (client.StartWorkflowOptions, error) {
	if err := validateKind(spec.Kind); err != nil {
		return client.StartWorkflowOptions{}, err
	}
	if strings.TrimSpace(spec.BusinessID) == "" || strings.ContainsAny(spec.BusinessID, " \t\r\n") {
		return client.StartWorkflowOptions{}, errs.Ef(errs.Invalid, "workflow business id %q is empty or contains whitespace", spec.BusinessID)
	}
	updates := make([]temporal.SearchAttributeUpdate, 0, len(spec.SearchAttributes)+1)
	updates = append(updates, SAWorkflowKind.ValueSet(string(spec.Kind)))
	updates = append(updates, spec.SearchAttributes...)
	updates = withMode(spec.Mode, updates...)
	opts := client.StartWorkflowOptions{
		ID:                                       WorkflowID(spec.Kind, spec.BusinessID),
		TaskQueue:                                TaskQueue,
		TypedSearchAttributes:                    temporal.NewSearchAttributes(updates...),
		WorkflowExecutionErrorWhenAlreadyStarted: true,
	}
	if spec.Summary != "" {
		opts.Memo = map[string]any{MemoSummary: spec.Summary}
		opts.StaticSummary = spec.Summary
	}
	if spec.Mode != "" {
		if opts.Memo == nil {
			opts.Memo = map[string]any{}
		}
		opts.Memo = modeMemo(spec.Mode, opts.Memo)
	}
	return opts, nil
}

func validateKind(k Kind) error {
	switch k {
	case KindOrder, KindDeviceLink, KindStrategy, KindHousekeeping, KindApprove, KindRedeem, KindAgentControl, KindWebhook:
		return nil
	}
	return errs.E(errs.Internal, fmt.Sprintf("unknown workflow kind %q", string(k)))
}
