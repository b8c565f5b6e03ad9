package agents

import (
	"context"
	"strings"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/models/store"
)

// Recorder writes the outcomes of the device-link workflow to the database.
// The workflow's activities call it (activities.DeviceLinks); it never
// sees a device code or an API key. Every method is idempotent, because
// activities run at least once.
//
// A decision arrives through Temporal, where anyone who reaches the
// frontend could have sent it, so the Recorder acts on none without its
// proof (DecisionProof), which only the authenticated approval path makes:
// the user id in a decision is a claim until the proof confirms it.
type Recorder struct {
	Store *store.Store
	// Intents verifies the decisions' proofs; nil refuses every decision.
	Intents *intent.Keys
	// Now is the clock the expiries are checked against; nil means the
	// store's.
	Now func() time.Time
	// OnLinked, when set, runs in the approval's transaction with the new
	// agent (models/notify tells the user there).
	OnLinked func(ctx context.Context, tx *store.Store, a *models.Agent) error
}

func (r *Recorder) now(tx *store.Store) time.Time {
	if r.Now != nil {
		return r.Now()
	}
	return tx.Now()
}

// DecisionProof is the proof of a device-link decision (kind
// intent.DeviceApprove or intent.DeviceDeny) for linkID by userID from
// clientAddr. Link ids are never reused, so the proof is bound to the
// link's one expiry too, and replayed it can only repeat this decision.
func DecisionProof(k *intent.Keys, kind, linkID, userID, clientAddr string) string {
	return k.Sign(kind, linkID, userID, clientAddr)
}

// approvalFields are the fields an approval's proof covers (see
// ApprovalProof).
func approvalFields(linkID, userID, clientAddr, budget string) []string {
	if budget == "" {
		return []string{linkID, userID, clientAddr}
	}
	return []string{linkID, userID, clientAddr, budget}
}

// verify checks a decision's proof before anything is read or written.
func (r *Recorder) verify(kind, linkID, userID, clientAddr, proof string) error {
	return r.Intents.Verify(proof, kind, linkID, userID, clientAddr)
}

// ApproveDeviceLink creates the agent of link linkID for userID (all four
// scopes, the budget the user approved — budget is ApprovalBudget.Field,
// "" the default's —, a one-minute heartbeat without active hours), moves
// the link pending → approved and audits both with the budget, in one
// transaction, and returns the agent's ID. Without a valid proof (over
// the budget too, ApprovalProof) it is errs.Forbidden and nothing
// happens. A retry after success returns the same agent; a link in
// another state is errs.Conflict.
func (r *Recorder) ApproveDeviceLink(ctx context.Context, linkID, userID, clientAddr, budget, proof string) (string, error) {
	if err := r.Intents.Verify(proof, intent.DeviceApprove, approvalFields(linkID, userID, clientAddr, budget)...); err != nil {
		return "", err
	}
	b, err := ParseApprovalField(budget)
	if err != nil {
		return "", err
	}
	var agentID string
	// Under the user's budget lock, as any revocation (Service.setStatus):
	// a paper namesake's order is accepted before the commit or refused
	// after it.
	err = r.Store.WithBudgetLock(ctx, userID, func(tx *store.Store) error {
		l, err := tx.DeviceLinkByID(ctx, linkID)
		if err != nil {
			return err
		}
		if l.Status == models.DeviceLinkApproved || l.Status == models.DeviceLinkIssued {
			if l.UserID != nil && *l.UserID == userID && l.AgentID != nil {
				agentID = *l.AgentID
				return nil
			}
		}
		if l.Status != models.DeviceLinkPending {
			return errs.E(errs.Conflict, "the device link is no longer pending").WithCode(errs.CodeDeviceLinkState)
		}
		a := &models.Agent{
			UserID: userID, Name: l.AgentName, Status: models.AgentActive,
			Scopes:              strings.Join(AllScopes, " "),
			HeartbeatIntervalMs: DefaultLinkHeartbeatIntervalMs,
			Mode:                b.Mode,
		}
		if !b.NoLimit {
			limit := b.FixedLimitMicro
			a.BudgetLimitMicro = &limit
		}
		if err := tx.CreateAgent(ctx, a); err != nil {
			return err
		}
		if err := tx.UpdateDeviceLinkStatus(ctx, l.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{
			Status: models.DeviceLinkApproved, UserID: &userID, AgentID: &a.ID,
		}); err != nil {
			return err
		}
		detail := map[string]any{"agent_name": l.AgentName, "budget": b.audit(), "mode": b.Mode}
		if b.Mode == models.ModeLive {
			revoked, err := revokePaperNamesakes(ctx, tx, userID, l, a.ID, clientAddr)
			if err != nil {
				return err
			}
			if len(revoked) > 0 {
				detail["revoked_paper_agents"] = revoked
			}
		}
		if err := audit.Append(ctx, tx, audit.Entry{
			UserID: userID, AgentID: a.ID, Action: audit.ActionDeviceApprove, Target: l.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: detail,
		}); err != nil {
			return err
		}
		if err := audit.Append(ctx, tx, audit.Entry{
			UserID: userID, AgentID: a.ID, Action: audit.ActionAgentLink, Target: a.ID, Result: audit.Success,
			ClientAddr: clientAddr, Detail: map[string]any{"device_link": l.ID, "scopes": AllScopes, "budget": b.audit(), "mode": b.Mode},
		}); err != nil {
			return err
		}
		agentID = a.ID
		if r.OnLinked != nil {
			return r.OnLinked(ctx, tx, a)
		}
		return nil
	})
	return agentID, err
}

// DenyDeviceLink moves link linkID pending → denied for userID and audits
// it, given the decision's proof (else errs.Forbidden). Denying a denied
// link again is a no-op; other states are Conflict.
func (r *Recorder) DenyDeviceLink(ctx context.Context, linkID, userID, clientAddr, proof string) error {
	if err := r.verify(intent.DeviceDeny, linkID, userID, clientAddr, proof); err != nil {
		return err
	}
	return r.Store.Tx(ctx, func(tx *store.Store) error {
		l, err := tx.DeviceLinkByID(ctx, linkID)
		if err != nil {
			return err
		}
		if l.Status == models.DeviceLinkDenied {
			return nil
		}
		if err := tx.UpdateDeviceLinkStatus(ctx, l.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{
			Status: models.DeviceLinkDenied, UserID: &userID,
		}); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{
			UserID: userID, Action: audit.ActionDeviceDeny, Target: l.ID, Result: audit.Success, ClientAddr: clientAddr,
			Detail: map[string]any{"agent_name": l.AgentName},
		})
	})
}

// errNotExpiredYet refuses to expire a link before its deadline by the
// database's clock: the workflow's timer fires at the deadline, so this
// only delays a worker whose clock lags (the activity is retried), and a
// forged expiry (a workflow started with an earlier deadline) changes
// nothing.
func errNotExpiredYet() error {
	return errs.E(errs.Transient, "the device link has not reached its expiry yet").WithCode(errs.CodeDeviceLinkNotExpired)
}

// ExpireDeviceLink moves a pending link to expired when its workflow's
// timer fires, and audits it. A link already decided or expired is left
// alone (nil): the workflow only expires what nobody decided. A link before
// its expiry is errs.Transient (errNotExpiredYet).
func (r *Recorder) ExpireDeviceLink(ctx context.Context, linkID string) error {
	return r.Store.Tx(ctx, func(tx *store.Store) error {
		l, err := tx.DeviceLinkByID(ctx, linkID)
		if err != nil {
			return err
		}
		if l.Status != models.DeviceLinkPending {
			return nil
		}
		if r.now(tx).Before(l.ExpiresAt) {
			return errNotExpiredYet()
		}
		err = tx.UpdateDeviceLinkStatus(ctx, linkID, models.DeviceLinkPending, store.DeviceLinkUpdate{Status: models.DeviceLinkExpired})
		if errs.Is(err, errs.Conflict) {
			return nil
		}
		if err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{Action: ActionDeviceExpire, Target: linkID, Result: audit.Failure,
			Detail: map[string]any{"reason": "expired"}})
	})
}

// ExpireUnissuedDeviceLink runs when an approved link reaches its expiry:
// if the agent never fetched its key, the link moves approved → expired
// (device.expire, reason key_not_collected) and the agent created at
// approval is revoked (agent.revoke), so no active agent without a key is
// left behind. It returns whether the link ended that way. A link whose
// key was issued is left alone (false); the status-conditional updates
// decide a race with the agent's last poll, so exactly one of "key issued"
// and "agent revoked" happens. An approved link before its expiry is
// errs.Transient (errNotExpiredYet). Idempotent: a retry finds the link
// expired and the agent revoked, and changes nothing.
func (r *Recorder) ExpireUnissuedDeviceLink(ctx context.Context, linkID string) (bool, error) {
	var expired bool
	err := r.Store.Tx(ctx, func(tx *store.Store) error {
		l, err := tx.DeviceLinkByID(ctx, linkID)
		if err != nil {
			return err
		}
		if l.Status == models.DeviceLinkApproved && r.now(tx).Before(l.ExpiresAt) {
			return errNotExpiredYet()
		}
		if l.Status == models.DeviceLinkApproved {
			err := tx.UpdateDeviceLinkStatus(ctx, l.ID, models.DeviceLinkApproved, store.DeviceLinkUpdate{Status: models.DeviceLinkExpired})
			switch {
			case err == nil:
				l.Status = models.DeviceLinkExpired
				if err := audit.Append(ctx, tx, audit.Entry{
					UserID: deref(l.UserID), AgentID: deref(l.AgentID), Action: ActionDeviceExpire, Target: l.ID, Result: audit.Failure,
					Detail: map[string]any{"reason": "key_not_collected"},
				}); err != nil {
					return err
				}
			case errs.Is(err, errs.Conflict):
				// The last poll (or housekeeping) moved it first.
				if l, err = tx.DeviceLinkByID(ctx, linkID); err != nil {
					return err
				}
			default:
				return err
			}
		}
		// Issued: the agent has its key. Pending or denied: no agent
		// exists. Expired without an agent: it expired before approval.
		if l.Status != models.DeviceLinkExpired || l.AgentID == nil || l.UserID == nil {
			return nil
		}
		expired = true
		a, err := tx.AgentByID(ctx, *l.AgentID)
		if err != nil {
			return err
		}
		if a.Status == models.AgentRevoked {
			return nil
		}
		if err := tx.UpdateAgentStatus(ctx, a.UserID, a.ID, models.AgentRevoked); err != nil {
			return err
		}
		return audit.Append(ctx, tx, audit.Entry{
			UserID: a.UserID, AgentID: a.ID, Action: audit.ActionAgentRevoke, Target: a.ID, Result: audit.Success,
			Detail: map[string]any{"from": a.Status, "to": models.AgentRevoked, "reason": "key_not_collected", "device_link": l.ID},
		})
	})
	return expired, err
}

// PaperNamesakes are userID's paper agents that a live approval of a link
// named name revokes: not revoked yet, and of the same name (the agent's
// identity in the device flow is the name it asks to link under; case and
// surrounding spaces aside). A paper agent never becomes live by itself:
// going live is a new approval, which ends the paper one
// (docs/paper-trading.md).
func PaperNamesakes(ctx context.Context, st *store.Store, userID, name string) ([]models.Agent, error) {
	list, err := st.ListAgentsByUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	var out []models.Agent
	for _, a := range list {
		if a.Mode == models.ModePaper && a.Status != models.AgentRevoked && SameAgentName(a.Name, name) {
			out = append(out, a)
		}
	}
	return out, nil
}

// SameAgentName reports whether two agent names name the same agent.
func SameAgentName(a, b string) bool {
	return strings.EqualFold(strings.TrimSpace(a), strings.TrimSpace(b))
}

// revokePaperNamesakes revokes, in the live approval's transaction, the
// paper namesakes of link l's agent (now liveID) and audits each; it
// returns their ids. What acts in their name is stopped after the commit
// (DeviceLinks.ApproveDevice has their control applied).
func revokePaperNamesakes(ctx context.Context, tx *store.Store, userID string, l *models.DeviceLink, liveID, clientAddr string) ([]string, error) {
	paper, err := PaperNamesakes(ctx, tx, userID, l.AgentName)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(paper))
	for _, p := range paper {
		if err := tx.UpdateAgentStatus(ctx, userID, p.ID, models.AgentRevoked); err != nil {
			return nil, err
		}
		if err := audit.Append(ctx, tx, audit.Entry{
			UserID: userID, AgentID: p.ID, Action: audit.ActionAgentRevoke, Target: p.ID, Result: audit.Success, ClientAddr: clientAddr,
			Detail: map[string]any{"from": p.Status, "to": models.AgentRevoked, "reason": "went_live", "device_link": l.ID, "live_agent": liveID},
		}); err != nil {
			return nil, err
		}
		ids = append(ids, p.ID)
	}
	return ids, nil
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
