package app

import (
	"context"
	"fmt"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/intent"
	"github.com/agent-trading/ats/workflows"
)

// The user's brakes on the operator surface, through the dashboard's
// workflows.Controls: an agent's pause, resume and revoke, `ats admin
// order cancel` and `ats admin user stop`.

// unreachable is the Temporal side of the controls when Temporal could
// not be reached: the agent's status changes anyway (the brake that binds
// every order in its name), and the command fails saying its strategies
// and orders were not reached (errs.CodeControlPending); run again, it
// finishes.
type unreachable struct{ err error }

func (u unreachable) Apply(context.Context, string, string) error { return u.err }

// adminAgentControl runs one of the controls' status changes (PauseAgent,
// ResumeAgent, RevokeAgent) on the --agent of the --email user.
func adminAgentControl(change func(c *workflows.Controls, ctx context.Context, userID, idOrName, clientAddr string) (agents.Agent, error)) cli.ActionFunc {
	return func(c *cli.Context) error {
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
		ctl := &workflows.Controls{Agents: ag}
		if env.tc, env.intents, err = dialAdminTemporal(c, env); err == nil {
			ctl.Runs = workflows.AgentControlClient{Client: env.tc}
		} else {
			env.log.Warn("Temporal is not reachable: the agent's status changes, its strategies and orders are not reached", "err", err)
			ctl.Runs = unreachable{errs.Wrap(errs.Transient, err, "Temporal is not reachable")}
		}
		a, err := change(ctl, c.Context, userID, c.String("agent"), agents.ClientAddrCLI)
		if a.ID != "" {
			fmt.Fprintf(c.App.Writer, "agent %s (%s) is now %s\n", a.Name, a.ID, a.Status)
		}
		return err
	}
}

// dialAdminTemporal connects an admin command to Temporal, with the keys
// its proofs and payloads need.
func dialAdminTemporal(c *cli.Context, env *adminEnv) (client.Client, *intent.Keys, error) {
	keys, err := adminMasterKey(c)
	if err != nil {
		return nil, nil, err
	}
	intents, err := keys.intents()
	if err != nil {
		return nil, nil, err
	}
	conn, err := temporalConnFrom(c, c.String(flagTemporal))
	if err != nil {
		return nil, nil, err
	}
	// Bounded: a Temporal that does not answer must not hold up the
	// status change, which is the brake.
	dctx, cancel := context.WithTimeout(c.Context, 15*time.Second)
	defer cancel()
	tc, err := DialTemporal(dctx, conn, keys, env.log)
	if err != nil {
		return nil, nil, err
	}
	return tc, intents, nil
}

// adminTradingFlags are the flags of admin commands that trade as the
// user: Temporal (the orders' workflows) and the venue.
func adminTradingFlags(extra ...cli.Flag) []cli.Flag {
	return adminTemporalFlags(append(extra,
		&cli.StringFlag{Name: flagVenue, EnvVars: []string{"ATS_VENUE"},
			Usage: "sandbox or polymarket; default sandbox with the embedded database (an `ats dev` data dir), polymarket with --database-url"},
		sandboxAddrFlag(), chainRPCFlag())...)
}

// withControls opens the database, Temporal and the venue and runs fn with
// the controls and the id of the --email user.
func withControls(c *cli.Context, fn func(ctl *workflows.Controls, userID string) error) error {
	return withUserServices(c, true, func(svc *Services, userID string) error { return fn(svc.Controls, userID) })
}

// adminOrderCommand is `ats admin order cancel --email E (--order ID |
// --agent ID_OR_NAME --all)`.
func adminOrderCommand() *cli.Command {
	return &cli.Command{
		Name:  "order",
		Usage: "a user's orders (as the user; same service as the dashboard)",
		Subcommands: []*cli.Command{{
			Name: "cancel",
			Usage: "cancel one order of the user (--order), or every open order of one agent (--agent with --all), " +
				"through the orders' workflows",
			Flags: adminTradingFlags(
				&cli.StringFlag{Name: "order", Usage: "the order's id (ord_…)"},
				&cli.StringFlag{Name: "agent", Usage: "the agent's id (agt_…) or name, with --all"},
				&cli.BoolFlag{Name: "all", Usage: "every open order (PENDING, OPEN, PARTIALLY_FILLED) of --agent"},
			),
			Action: adminOrderCancel,
		}},
	}
}

func adminOrderCancel(c *cli.Context) error {
	order, agent, all := c.String("order"), c.String("agent"), c.Bool("all")
	switch {
	case order != "" && (agent != "" || all):
		return errs.E(errs.Invalid, "give --order, or --agent with --all, not both")
	case order == "" && (agent == "" || !all):
		return errs.E(errs.Invalid, "give --order ID, or --agent ID_OR_NAME --all")
	}
	return withControls(c, func(ctl *workflows.Controls, userID string) error {
		if order != "" {
			o, err := ctl.CancelOrder(c.Context, userID, order, agents.ClientAddrCLI)
			if err != nil {
				return err
			}
			fmt.Fprintf(c.App.Writer, "order %s is now %s (was %s)\n", o.ID, o.Status, o.PreviousStatus)
			return nil
		}
		rep, err := ctl.CancelAgentOrders(c.Context, userID, agent, agents.ClientAddrCLI)
		if err != nil {
			return err
		}
		return printCancels(c, rep)
	})
}

func printCancels(c *cli.Context, rep workflows.CancelReport) error {
	fmt.Fprintf(c.App.Writer, "cancelled %d open order(s)\n", rep.Cancelled)
	for _, f := range rep.Failed {
		fmt.Fprintf(c.App.Writer, "not cancelled: %s: %s\n", f.OrderID, f.Reason)
	}
	if len(rep.Failed) > 0 {
		return errs.Ef(errs.Transient, "%d order(s) could not be cancelled: run the command again", len(rep.Failed))
	}
	return nil
}

// adminUserStop is `ats admin user stop --email E`: the dashboard's stop
// everything.
func adminUserStop(c *cli.Context) error {
	return withControls(c, func(ctl *workflows.Controls, userID string) error {
		rep, err := ctl.StopEverything(c.Context, userID, agents.ClientAddrCLI)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "paused %d agent(s) and %d strateg(ies)\n", rep.AgentsPaused, rep.StrategiesPaused)
		for _, f := range rep.Failed {
			fmt.Fprintf(c.App.Writer, "not done: %s\n", f)
		}
		if err := printCancels(c, rep.Orders); err != nil {
			return err
		}
		if len(rep.Failed) > 0 {
			return errs.Ef(errs.Transient, "%d change(s) did not take: run the command again", len(rep.Failed))
		}
		return nil
	})
}
