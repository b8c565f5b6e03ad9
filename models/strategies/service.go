package strategies

import (
	"bytes"
	"context"
	"encoding/json"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// Actor is who asks: an agent over the API (By ByAgent, AgentID set), or
// the user from the dashboard or an admin command (By ByUser; AgentID
// empty: any agent of the user).
type Actor struct {
	By      string
	AgentID string
	UserID  string
	// ClientAddr is where the request came from, for the audit log.
	ClientAddr string
}

// Service is the strategy service behind the strategies desk
// (workflows.StrategyDesk), which the API, the dashboard and the admin
// commands call. It checks, stores and reads, and returns: it never calls
// a strategy's workflow, so the walk api/strategies → workflows →
// Temporal → activities → models/strategies enters no package twice.
type Service struct {
	Store    *store.Store
	Resolver Resolver
	// Markets reads the market of the token a strategy trades: its name
	// for the answers, its minimum order size for the feasibility check,
	// and whether it still trades (nil: none of these).
	Markets MarketReader
	// Network derives the proxy and Safe of a user's EOA, which a
	// COPY_TRADE may not copy either (nil: only the stored addresses).
	Network *network.Network
	// Head is the chain's current block: a COPY_TRADE copies its target's
	// trades from there on (nil: from whatever its watcher reads next).
	Head func(ctx context.Context) (uint64, error)
	Now  func() time.Time
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC()
	}
	return time.Now().UTC()
}

// CreateRequest is a new strategy.
type CreateRequest struct {
	Type      string
	Config    json.RawMessage
	MaxBudget *Dec
}

// Accept validates and stores a strategy as ACTIVE, and returns the state
// its workflow starts from (the desk starts it, then calls Created; a
// start that fails calls Withdraw). Strategies an agent creates expire
// DefaultExpiry after creation unless extended.
func (s *Service) Accept(ctx context.Context, a Actor, r CreateRequest) (State, error) {
	if a.AgentID == "" || a.UserID == "" {
		return State{}, errs.E(errs.Invalid, "a strategy belongs to an agent")
	}
	cfg, norm, err := ParseConfig(r.Type, r.Config)
	if err != nil {
		return State{}, err
	}
	if err := CheckMaxBudget(r.MaxBudget); err != nil {
		return State{}, err
	}
	token, err := s.resolve(ctx, cfg)
	if err != nil {
		return State{}, err
	}
	m, err := s.market(ctx, token)
	if err != nil {
		return State{}, err
	}
	if err := feasible(r.Type, cfg, r.MaxBudget.Decimal, m); err != nil {
		return State{}, err
	}
	agent, err := s.Store.AgentByID(ctx, a.AgentID)
	if err != nil {
		return State{}, err
	}
	now := s.now()
	st := &models.Strategy{
		ID: models.NewID(models.PrefixStrategy), AgentID: a.AgentID, UserID: a.UserID, Type: r.Type, Config: string(norm),
		MaxBudgetMicro: micro.Truncate(r.MaxBudget.Decimal), Status: StatusActive, CreatedBy: a.By, TokenID: token, Mode: agent.Mode,
	}
	if m != nil {
		follow(st, m, now)
	}
	st.WorkflowID = st.ID
	if a.By == ByAgent {
		exp := now.Add(DefaultExpiry)
		st.ExpiresAt = &exp
	}
	t := TypeOf(r.Type) // checked by ParseConfig
	if t.Traits().Interval {
		st.NextEvaluationAt = &now
	}
	st.Triggers = encodeConds(conditionsFor(st, cfg, 0))
	var also func(tx *store.Store) error
	if f, ok := t.(Follower); ok {
		if also, err = s.prepareCopy(ctx, a.UserID, st, f.Target(cfg)); err != nil {
			return State{}, err
		}
	}
	if err := s.Store.CreateStrategyLimited(ctx, st, MaxNonFinal, NonFinal, also); err != nil {
		return State{}, err
	}
	return stateOf(st), nil
}

// Withdraw deletes a strategy Accept stored whose workflow could not be
// started: nothing ran, and it is not left ACTIVE without a workflow.
func (s *Service) Withdraw(ctx context.Context, id string) error {
	if err := s.Store.DeleteStrategy(context.WithoutCancel(ctx), id); err != nil {
		return errs.Wrap(errs.Internal, err, "strategy start failed and could not be withdrawn")
	}
	return nil
}

// Created audits the creation of a strategy whose workflow started and
// returns it as the creator sees it.
func (s *Service) Created(ctx context.Context, a Actor, id string) (Strategy, error) {
	st, err := s.Store.StrategyByID(ctx, id)
	if err != nil {
		return Strategy{}, err
	}
	if err := s.audit(ctx, a, st, "create"); err != nil {
		return Strategy{}, err
	}
	return s.view(ctx, st, false)
}

// audit records a change the actor made to st in the user's audit log.
func (s *Service) audit(ctx context.Context, a Actor, st *models.Strategy, action string) error {
	return audit.Append(ctx, s.Store, audit.Entry{UserID: st.UserID, AgentID: st.AgentID, Action: audit.ActionStrategy + action,
		Target: st.ID, Result: audit.Success, ClientAddr: a.ClientAddr, Detail: map[string]any{"by": a.By, "type": st.Type, "strategy": st.ID}})
}

// resolve returns the token a config trades now.
func (s *Service) resolve(ctx context.Context, c Config) (string, error) {
	if c.MarketQuery == "" { // a tokenId, or a type without a market (COPY_TRADE)
		return c.TokenID, nil
	}
	if s.Resolver == nil {
		return "", errs.E(errs.Internal, "market search is not configured in this process")
	}
	return s.Resolver.Resolve(ctx, c.MarketQuery, c.Outcome)
}

// market reads the market of token (nil without a token or a reader) and
// refuses one that no longer trades: a strategy there could never trade.
func (s *Service) market(ctx context.Context, token string) (*markets.TokenMarket, error) {
	if token == "" || s.Markets == nil {
		return nil, nil
	}
	m, err := s.Markets.TokenMarket(ctx, token)
	if err != nil {
		return nil, err
	}
	if !m.Trading() {
		return nil, errs.Ef(errs.Conflict, "the market of token %s (%s: %s) no longer accepts orders", token, m.Question, m.Outcome).
			WithCode(errs.CodeStrategyMarketClosed).WithHint("choose a market that trades (GET /markets/search), or give a marketQuery")
	}
	return m, nil
}

// find loads a strategy the actor may see: an agent's own, or any of the
// user's. Another's is NotFound.
func (s *Service) find(ctx context.Context, a Actor, id string) (*models.Strategy, error) {
	var st *models.Strategy
	var err error
	if a.AgentID != "" {
		st, err = s.Store.StrategyForAgent(ctx, a.AgentID, id)
	} else {
		st, err = s.Store.StrategyByID(ctx, id)
	}
	if err == nil && st.UserID != a.UserID {
		err = errs.E(errs.NotFound, "strategy not found")
	}
	if err != nil {
		if errs.Is(err, errs.NotFound) {
			return nil, errs.Ef(errs.NotFound, "strategy %s not found", id).WithCode(errs.CodeStrategyNotFound)
		}
		return nil, err
	}
	return st, nil
}

// Get returns a strategy with its last DetailExecutions executions.
func (s *Service) Get(ctx context.Context, a Actor, id string) (Strategy, error) {
	st, err := s.find(ctx, a, id)
	if err != nil {
		return Strategy{}, err
	}
	return s.view(ctx, st, true)
}

// ListFilter filters List.
type ListFilter struct {
	Status string
	Type   string
	// AgentID narrows a user's listing to one of their agents (an
	// agent's own listing is always its own).
	AgentID string
}

// List returns the actor's strategies, newest first.
func (s *Service) List(ctx context.Context, a Actor, f ListFilter) ([]Strategy, error) {
	sf := store.StrategyFilter{UserID: a.UserID, AgentID: a.AgentID, Type: f.Type}
	if sf.AgentID == "" {
		sf.AgentID = f.AgentID
	}
	if f.Status != "" {
		sf.Statuses = []string{f.Status}
	}
	rows, err := s.Store.FindStrategies(ctx, sf)
	if err != nil {
		return nil, err
	}
	out := make([]Strategy, 0, len(rows))
	for i := range rows {
		v, _ := s.view(ctx, &rows[i], false)
		out = append(out, v)
	}
	return out, nil
}

func (s *Service) view(ctx context.Context, st *models.Strategy, withExecutions bool) (Strategy, error) {
	v := Strategy{
		ID: st.ID, AgentID: st.AgentID, UserID: st.UserID, Type: st.Type, Status: st.Status, Mode: st.Mode, Config: json.RawMessage(st.Config),
		MaxBudget: micro.Decimal(st.MaxBudgetMicro), BudgetUsed: micro.Decimal(st.BudgetUsedMicro), CreatedBy: st.CreatedBy,
		PausedBy: st.PausedBy, EndedReason: st.EndedReason, LastError: st.LastError, ConsecutiveErrors: st.ConsecutiveFailures,
		TokenID: st.TokenID, OpenSize: micro.Decimal(st.OpenSizeMicro), ExecutionCount: st.Executions,
		CreatedAt: st.CreatedAt, UpdatedAt: st.UpdatedAt, ExpiresAt: st.ExpiresAt,
		LastEvaluatedAt: st.LastEvaluatedAt, NextEvaluationAt: st.NextEvaluationAt, Market: marketOf(st),
	}
	if !withExecutions {
		return v, nil
	}
	recs, err := s.Store.ListStrategyExecutions(ctx, st.ID, DetailExecutions)
	if err != nil {
		return Strategy{}, err
	}
	// An execution shows its order as it stands now: a fill that came
	// after the execution was recorded is in its filled size, its amount
	// and its status.
	var ids []string
	for _, r := range recs {
		if r.OrderID != nil {
			ids = append(ids, *r.OrderID)
		}
	}
	live, err := s.Store.ExecutionOrders(ctx, ids)
	if err != nil {
		return Strategy{}, err
	}
	v.Executions = make([]Execution, 0, len(recs))
	for _, r := range recs {
		e := Execution{ID: r.ID, Seq: r.Seq, Time: r.Time, Kind: r.Kind, Action: r.Action, Reason: r.Reason, OrderStatus: r.OrderStatus,
			TokenID: r.TokenID, Side: r.Side, Price: micro.Decimal(r.PriceMicro), Size: micro.Decimal(r.SizeMicro), Amount: micro.Decimal(r.AmountMicro),
			FilledSize: micro.Decimal(r.FilledSizeMicro), AvgFillPrice: micro.Decimal(r.AvgFillPriceMicro)}
		if r.MarketQuestion != "" || r.MarketSlug != "" {
			e.Market = &Market{Question: r.MarketQuestion, Outcome: r.MarketOutcome, Slug: r.MarketSlug, EndDate: r.MarketEndDate}
		}
		if r.OrderID != nil {
			e.OrderID = *r.OrderID
			if o, ok := live[*r.OrderID]; ok {
				e.OrderStatus = o.Status
				e.FilledSize, e.AvgFillPrice = micro.Decimal(o.FilledSizeMicro), micro.Decimal(o.AvgFillPriceMicro)
				e.Amount = micro.Decimal(spent(&o))
			}
		}
		v.Executions = append(v.Executions, e)
	}
	return v, nil
}

// ChangeAttempts bounds how often the desk sends a change again after it
// found the strategy moved on (an execution that ended or errored it
// while the change waited for its turn).
const ChangeAttempts = 3

// PrepareChange checks that the actor may make ch to the strategy as it is
// now and binds ch to its version, so that the change cannot be applied
// again later (the workflow's history holds it) nor to a strategy that
// changed in between. The change is audited where it is applied
// (Engine.Apply), in its transaction.
func (s *Service) PrepareChange(ctx context.Context, a Actor, id string, ch Change) (Change, error) {
	st, err := s.find(ctx, a, id)
	if err != nil {
		return Change{}, err
	}
	if err := AllowedFor(ch.Action, st.Status, st.PausedBy); err != nil {
		return Change{}, err
	}
	if ch.Action == ActionResume {
		// Refused here already, without a trip to the workflow (whose
		// step refuses it too).
		if err := (&Engine{Store: s.Store}).agentActive(ctx, st); err != nil {
			return Change{}, err
		}
	}
	if _, ok := followerOf(st.Type); ok && ch.Action == ActionResume {
		if err := s.checkCopyTarget(ctx, st.UserID, copyTarget(st)); err != nil {
			return Change{}, err
		}
	}
	ch.StrategyID, ch.By, ch.Version, ch.ClientAddr = st.ID, a.By, st.Version, a.ClientAddr
	return ch, nil
}

// Retry reports whether a change refused with err is worth preparing
// again: only the strategy's status moved since it was prepared (a patch
// was computed from the terms it read, and is not sent again over other
// terms).
func (s *Service) Retry(ctx context.Context, a Actor, ch Change, err error) bool {
	if errs.CodeOf(err) != errs.CodeStrategyState || ch.Action == ActionPatch {
		return false
	}
	now, ferr := s.find(ctx, a, ch.StrategyID)
	return ferr == nil && now.Version != ch.Version
}

// Changed returns the strategy after a change, with its executions.
func (s *Service) Changed(ctx context.Context, id string) (Strategy, error) {
	st, err := s.Store.StrategyByID(ctx, id)
	if err != nil {
		return Strategy{}, err
	}
	return s.view(ctx, st, true)
}

// ExtendChange is the change that moves a strategy's expiry to until: in
// the future and at most MaxExpiry from now.
func (s *Service) ExtendChange(until time.Time) (Change, error) {
	if err := s.checkExpiry(until); err != nil {
		return Change{}, err
	}
	u := until.UTC()
	return Change{Action: ActionExtend, ExpiresAt: &u}, nil
}

func (s *Service) checkExpiry(until time.Time) error {
	now := s.now()
	if !until.After(now) || until.After(now.Add(MaxExpiry)) {
		return errs.E(errs.Invalid, "expiresAt must be in the future and at most 30 days from now").WithCode(errs.CodeInvalidExpiry)
	}
	return nil
}

// PatchRequest changes a strategy: Config is a JSON merge patch of the
// stored config (a null removes a field; giving tokenId or marketQuery
// drops the other); Type, when given, must be the strategy's type.
type PatchRequest struct {
	Type      string
	Config    json.RawMessage
	MaxBudget *Dec
	ExpiresAt *time.Time
}

// PatchChanges checks r against the strategy and returns the changes that
// apply it, in order: the patch of its config or budget (when r changes
// them) and the extension of its expiry (when r gives one).
func (s *Service) PatchChanges(ctx context.Context, a Actor, id string, r PatchRequest) ([]Change, error) {
	st, err := s.find(ctx, a, id)
	if err != nil {
		return nil, err
	}
	if r.Type != "" && r.Type != st.Type {
		return nil, errs.Ef(errs.Invalid, "a strategy's type never changes (it is %s)", st.Type).WithCode(errs.CodeStrategyTypeImmutable)
	}
	if len(bytes.TrimSpace(r.Config)) == 0 && r.MaxBudget == nil && r.ExpiresAt == nil {
		return nil, errs.E(errs.Invalid, "nothing to change: give config, maxBudget or expiresAt").WithCode(errs.CodeInvalidField)
	}
	if err := Allowed(ActionPatch, st.Status); err != nil {
		return nil, err
	}
	var out []Change
	if len(bytes.TrimSpace(r.Config)) > 0 || r.MaxBudget != nil {
		norm, cfg := []byte(st.Config), Config{}
		if len(bytes.TrimSpace(r.Config)) > 0 {
			merged, err := mergeConfig(st.Config, r.Config)
			if err != nil {
				return nil, err
			}
			if cfg, norm, err = ParseConfig(st.Type, merged); err != nil {
				return nil, err
			}
			if f, ok := followerOf(st.Type); ok && f.Target(cfg) != copyTarget(st) {
				return nil, errs.E(errs.Invalid, "a COPY_TRADE's targetAddress never changes").WithCode(errs.CodeCopyTargetImmutable).
					WithHint("cancel it and create a strategy that copies the other wallet")
			}
		} else if cfg, err = Load(st.Config); err != nil {
			return nil, err
		}
		budget := st.MaxBudgetMicro
		if r.MaxBudget != nil {
			if err := CheckMaxBudget(r.MaxBudget); err != nil {
				return nil, err
			}
			budget = micro.Truncate(r.MaxBudget.Decimal)
			if budget <= st.BudgetUsedMicro {
				return nil, errs.Ef(errs.Invalid, "maxBudget must be above the %s USDC the strategy has spent", micro.Decimal(st.BudgetUsedMicro).String()).
					WithCode(errs.CodeInvalidMaxBudget)
			}
		}
		token := st.TokenID
		if len(bytes.TrimSpace(r.Config)) > 0 {
			if token, err = s.resolve(ctx, cfg); err != nil {
				return nil, err
			}
		}
		var m *markets.TokenMarket
		if token != st.TokenID {
			// Moving to another market: it must trade.
			if m, err = s.market(ctx, token); err != nil {
				return nil, err
			}
		} else if token != "" && s.Markets != nil {
			if m, err = s.Markets.TokenMarket(ctx, token); err != nil {
				return nil, err
			}
		}
		if err := feasible(st.Type, cfg, micro.Decimal(budget), m); err != nil {
			return nil, err
		}
		out = append(out, Change{Action: ActionPatch, Config: string(norm), MaxBudgetMicro: budget, TokenID: token})
	}
	if r.ExpiresAt != nil {
		ext, err := s.ExtendChange(*r.ExpiresAt)
		if err != nil {
			return nil, err
		}
		out = append(out, ext)
	}
	return out, nil
}

// mergeConfig applies a JSON merge patch (RFC 7396, one level) to the
// stored config.
func mergeConfig(stored string, patch json.RawMessage) (json.RawMessage, error) {
	var base, p map[string]json.RawMessage
	if err := json.Unmarshal([]byte(stored), &base); err != nil {
		return nil, errs.Wrap(errs.Internal, err, "stored strategy config is unreadable")
	}
	if err := json.Unmarshal(patch, &p); err != nil || p == nil {
		return nil, errs.E(errs.Invalid, "config must be a JSON object").WithCode(errs.CodeInvalidField)
	}
	_, tok := p["tokenId"]
	_, mq := p["marketQuery"]
	if tok && !mq {
		delete(base, "marketQuery")
	}
	if mq && !tok {
		delete(base, "tokenId")
	}
	if _, ok := p["intervalMs"]; ok {
		if _, both := p["interval"]; !both {
			delete(base, "interval")
		}
	}
	if _, ok := p["interval"]; ok {
		if _, both := p["intervalMs"]; !both {
			delete(base, "intervalMs")
		}
	}
	for k, v := range p {
		if bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			delete(base, k)
		} else {
			base[k] = v
		}
	}
	return json.Marshal(base)
}
