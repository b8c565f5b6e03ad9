package app

import (
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/workflows"
)

// adminStrategyCommand is `ats admin strategy list|pause|resume|cancel|extend`:
// the user's strategy controls on the operator surface, through the same
// workflows.StrategyDesk the dashboard uses. Changes act as the user (a pause
// here is a user pause, reported by the heartbeat).
func adminStrategyCommand() *cli.Command {
	strategyFlag := &cli.StringFlag{Name: "strategy", Required: true, Usage: "the strategy's id (str_…)"}
	change := func(name, usage string, extra ...cli.Flag) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, Flags: adminTemporalFlags(append([]cli.Flag{strategyFlag}, extra...)...), Action: adminStrategyChange(name)}
	}
	return &cli.Command{
		Name:  "strategy",
		Usage: "manage a user's strategies (as the user)",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "list the user's strategies (of one agent with --agent)", Action: adminStrategyList,
				Flags: adminDBFlags(&cli.StringFlag{Name: "agent", Usage: "only this agent's (id agt_… or name)"})},
			change("pause", "pause an ACTIVE strategy (a user pause)"),
			change("resume", "resume a PAUSED or ERROR strategy"),
			change("cancel", "cancel a strategy for good"),
			change("extend", "move a strategy's expiry (at most 30 days ahead)",
				&cli.StringFlag{Name: "until", Required: true, Usage: "the new expiry, RFC 3339 (e.g. 2026-12-01T00:00:00Z)"}),
		},
	}
}

func adminStrategyList(c *cli.Context) error {
	env, err := openAdmin(c, false)
	if err != nil {
		return err
	}
	defer env.close()
	ag := agentService(env.store, "")
	userID, err := ag.UserIDByEmail(c.Context, c.String("email"))
	if err != nil {
		return err
	}
	actor := strategies.Actor{By: strategies.ByUser, UserID: userID, ClientAddr: agents.ClientAddrCLI}
	if a := c.String("agent"); a != "" {
		list, err := ag.List(c.Context, userID)
		if err != nil {
			return err
		}
		for _, x := range list {
			if x.ID == a || x.Name == a {
				actor.AgentID = x.ID
			}
		}
		if actor.AgentID == "" {
			return errs.Ef(errs.NotFound, "the user has no agent %q", a)
		}
	}
	svc := &strategies.Service{Store: env.store}
	list, err := svc.List(c.Context, actor, strategies.ListFilter{})
	if err != nil {
		return err
	}
	w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tAGENT\tTYPE\tSTATUS\tBUDGET USED\tEXECUTIONS\tEXPIRES\tCREATED")
	for _, s := range list {
		exp := "never"
		if s.ExpiresAt != nil {
			exp = s.ExpiresAt.UTC().Format(time.RFC3339)
		}
		status := s.Status
		if s.PausedBy != "" {
			status += " (by " + s.PausedBy + ")"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s / %s\t%d\t%s\t%s\n", s.ID, s.AgentID, s.Type, status, s.BudgetUsed.String(), s.MaxBudget.String(),
			s.ExecutionCount, exp, s.CreatedAt.UTC().Format(time.RFC3339))
	}
	return w.Flush()
}

func adminStrategyChange(action string) cli.ActionFunc {
	return func(c *cli.Context) error {
		var until time.Time
		if action == "extend" {
			var err error
			if until, err = time.Parse(time.RFC3339, c.String("until")); err != nil {
				return errs.E(errs.Invalid, "--until must be an RFC 3339 time, e.g. 2026-12-01T00:00:00Z").WithCode(errs.CodeInvalidExpiry)
			}
		}
		env, err := openAdmin(c, true)
		if err != nil {
			return err
		}
		defer env.close()
		userID, err := agentService(env.store, "").UserIDByEmail(c.Context, c.String("email"))
		if err != nil {
			return err
		}
		svc := &workflows.StrategyDesk{Strategies: &strategies.Service{Store: env.store}, Runs: workflows.StrategyDeskClient{Client: env.tc, Intents: env.intents}}
		actor := strategies.Actor{By: strategies.ByUser, UserID: userID, ClientAddr: agents.ClientAddrCLI}
		id := c.String("strategy")
		var st strategies.Strategy
		switch action {
		case "pause":
			st, err = svc.Pause(c.Context, actor, id)
		case "resume":
			st, err = svc.Resume(c.Context, actor, id)
		case "cancel":
			st, err = svc.Cancel(c.Context, actor, id)
		case "extend":
			st, err = svc.Extend(c.Context, actor, id, until)
		}
		if err != nil {
			return err
		}
		exp := "never"
		if st.ExpiresAt != nil {
			exp = st.ExpiresAt.UTC().Format(time.RFC3339)
		}
		fmt.Fprintf(c.App.Writer, "strategy %s (%s) is now %s; expires %s\n", st.ID, st.Type, st.Status, exp)
		return nil
	}
}
