package app

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/shopspring/decimal"
	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/agents"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/rotation"
	"github.com/agent-trading/ats/models/users"
	"github.com/agent-trading/ats/models/vault"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
	"github.com/agent-trading/ats/workflows"
)

// Admin commands talk to the same database (and, where they need it,
// Temporal) as the server, so they work against a running `ats dev` from
// another terminal.
func adminCommand() *cli.Command {
	return &cli.Command{
		Name:  "admin",
		Usage: "administer users, agents, devices and wallets",
		Subcommands: []*cli.Command{
			{
				Name:  "user",
				Usage: "dashboard users",
				Subcommands: []*cli.Command{{
					Name:  "create",
					Usage: "create a dashboard user (ats admin user create --email E --password-stdin)",
					Flags: append([]cli.Flag{
						&cli.StringFlag{Name: "email", Required: true, Usage: "the user's email address"},
						&cli.BoolFlag{Name: "password-stdin", Usage: "read the password from standard input (required: passwords never go on the command line)"},
						DataDirFlag(), databaseFlag(),
					}, logFlags()...),
					Action: adminUserCreate,
				}, {
					Name: "invite",
					Usage: "make a one-time sign-up invite (for --signup invite): prints the code and the sign-up path; " +
						"the code is shown once",
					Flags: append([]cli.Flag{
						&cli.StringFlag{Name: "email", Usage: "only this email may sign up with the invite (default: anyone)"},
						&cli.DurationFlag{Name: "ttl", Value: users.DefaultInviteTTL, Usage: "how long the invite stays valid"},
						DataDirFlag(), databaseFlag(),
					}, logFlags()...),
					Action: adminUserInvite,
				}, {
					Name: "stop",
					Usage: "stop everything the user's agents do (the dashboard's stop-everything control): every agent and strategy is paused, " +
						"every open order cancelled; positions are not sold, nothing resumes by itself",
					Flags:  adminTradingFlags(),
					Action: adminUserStop,
				}},
			},
			adminOrderCommand(),
			{
				Name:  "device",
				Usage: "device links of agents",
				Subcommands: []*cli.Command{
					{
						Name: "approve",
						Usage: "approve a pending device link as that user (same code path as the /link page); the agent gets the default fixed limit of " +
							agents.DefaultApprovalFixedLimit() + " USDC unless --fixed-limit sets another or --no-limit is given",
						Flags: adminTemporalFlags(&cli.StringFlag{Name: "code", Required: true, Usage: "the code the agent shows, XXXX-XXXX"},
							&cli.StringFlag{Name: "fixed-limit", Usage: "the most USDC the agent may spend in all (default " + agents.DefaultApprovalFixedLimit() + ")"},
							&cli.BoolFlag{Name: "no-limit", Usage: "no spending limit: the agent may spend the whole wallet (recorded in the audit log)"},
							&cli.StringFlag{Name: "mode", Usage: "paper (simulated money against the real book, the default) or live (the wallet's money); a paper agent never becomes live"}),
						Action: adminDeviceApprove,
					},
					{
						Name:   "deny",
						Usage:  "deny a pending device link as that user",
						Flags:  adminTemporalFlags(&cli.StringFlag{Name: "code", Required: true, Usage: "the code the agent shows, XXXX-XXXX"}),
						Action: adminDeviceDeny,
					},
				},
			},
			{
				Name:  "wallet",
				Usage: "users' trading wallets",
				Subcommands: []*cli.Command{{
					Name: "import",
					Usage: "import a wallet for a user (same code path as the dashboard): the EOA private key on standard input, " +
						"plus the proxy/Safe/deposit wallet address; the wallet kind is detected",
					Flags: adminDBFlags(
						&cli.StringFlag{Name: "proxy-address", Usage: "the venue proxy, Safe or deposit wallet that holds the funds; omit for a plain EOA"},
						&cli.BoolFlag{Name: "private-key-stdin", Usage: "read the hex private key from standard input (required: keys never go on the command line)"},
						&cli.StringFlag{Name: flagVenue, EnvVars: []string{"ATS_VENUE"},
							Usage: "sandbox or polymarket; default sandbox with the embedded database (an `ats dev` data dir), polymarket with --database-url"},
						sandboxAddrFlag(), chainRPCFlag(), MasterKeyFlag(), walletImportFlag(),
					),
					Action: adminWalletImport,
				}},
			},
			{
				Name:  "master-key",
				Usage: "the master key that seals wallet keys, venue credentials, 2FA secrets and Temporal payloads",
				Subcommands: []*cli.Command{{
					Name: "rotate",
					Usage: "re-seal every stored secret under a new master key. The current key is --master-key-file or ATS_MASTER_KEY " +
						"(or the `ats dev` data dir's); afterwards run every process with the new key and --previous-master-key-file <old key>",
					Flags: append([]cli.Flag{
						&cli.StringFlag{Name: "new-key-file", Required: true, Usage: "file holding the new 32-byte master key (base64), e.g. head -c32 /dev/urandom | base64 > new.key"},
						DataDirFlag(), databaseFlag(), MasterKeyFlag(), PreviousMasterKeyFlag(),
					}, logFlags()...),
					Action: adminMasterKeyRotate,
				}},
			},
			adminStrategyCommand(),
			{
				Name:  "agent",
				Usage: "a user's linked agents (same service as the dashboard)",
				Subcommands: []*cli.Command{
					{Name: "list", Usage: "list the user's agents", Flags: adminDBFlags(), Action: adminAgentList},
					{Name: "pause", Usage: "pause an agent: its key gets 401 and nothing is placed in its name until resumed; its active strategies pause with it",
						Flags: adminTemporalFlags(agentFlag()), Action: adminAgentControl((*workflows.Controls).PauseAgent)},
					{Name: "resume", Usage: "resume a paused agent and the strategies paused with it",
						Flags: adminTemporalFlags(agentFlag()), Action: adminAgentControl((*workflows.Controls).ResumeAgent)},
					{Name: "revoke", Usage: "revoke an agent's access, immediately and for good; its strategies and open orders are cancelled",
						Flags: adminTemporalFlags(agentFlag()), Action: adminAgentControl((*workflows.Controls).RevokeAgent)},
					{
						Name:  "rate-limit",
						Usage: "set how many requests per minute the agent's key may make (default 100); applies from its next request",
						Flags: adminDBFlags(agentFlag(), &cli.IntFlag{Name: "per-minute", Required: true,
							Usage: fmt.Sprintf("requests per minute, %d to %d", agents.MinRateLimitPerMinute, agents.MaxRateLimitPerMinute)}),
						Action: adminAgentRateLimit,
					},
					{
						Name: "budget",
						Usage: "set or clear the agent's spending controls (same service as the dashboard); " +
							"limits not named stay as they are, and orders are checked against the new ones from the next order on",
						Flags: adminDBFlags(agentFlag(),
							&cli.StringFlag{Name: "fixed-limit", Usage: "the most USDC the agent may spend in all (a decimal, e.g. 25 or 12.5)"},
							&cli.StringFlag{Name: "budget-percent", Usage: "the share of the wallet balance the agent may use, in percent (above 0, at most 100)"},
							&cli.StringFlag{Name: "max-position-value", Usage: "the most USDC the agent's open positions may be worth"},
							&cli.StringSliceFlag{Name: "clear", Usage: "remove a limit: " + agents.LimitFixed + ", " +
								agents.LimitBudgetPercent + " or " + agents.LimitMaxPositionValue + " (repeatable)"},
						),
						Action: adminAgentBudget,
					},
					{
						Name: "heartbeat",
						Usage: "set the agent key's heartbeat interval and active hours (same service as the dashboard); " +
							"settings not named stay as they are",
						Flags: adminDBFlags(agentFlag(),
							&cli.DurationFlag{Name: "interval", Usage: fmt.Sprintf("suggested time between heartbeats, %s to %s (e.g. 30s, 5m)",
								time.Duration(agents.MinHeartbeatIntervalMs)*time.Millisecond, time.Duration(agents.MaxHeartbeatIntervalMs)*time.Millisecond)},
							&cli.StringFlag{Name: "active-hours", Usage: "HH:MM-HH:MM wall-clock window in --timezone (22:00-06:00 crosses midnight); outside it the heartbeat answers SLEEPING"},
							&cli.StringFlag{Name: "timezone", Usage: "IANA time zone of --active-hours, e.g. Europe/Berlin"},
							&cli.BoolFlag{Name: "always", Usage: "no active hours: always awake"},
						),
						Action: adminAgentHeartbeat,
					},
				},
			},
		},
	}
}

func emailFlag() cli.Flag {
	return &cli.StringFlag{Name: "email", Required: true, Usage: "the user's email address"}
}

func agentFlag() cli.Flag {
	return &cli.StringFlag{Name: "agent", Required: true, Usage: "the agent's id (agt_…) or name"}
}

func adminDBFlags(extra ...cli.Flag) []cli.Flag {
	fs := append([]cli.Flag{emailFlag()}, extra...)
	fs = append(fs, DataDirFlag(), databaseFlag())
	return append(fs, logFlags()...)
}

func adminTemporalFlags(extra ...cli.Flag) []cli.Flag {
	fs := append(adminDBFlags(extra...), temporalFlag(false), temporalNamespaceFlag(), MasterKeyFlag())
	return append(fs, temporalSecurityFlags()...)
}

// withAgents opens the database and runs fn with the agent service and the
// id of the --email user.
func withAgents(c *cli.Context, fn func(svc *agents.Service, userID string) error) error {
	env, err := openAdmin(c, false)
	if err != nil {
		return err
	}
	defer env.close()
	svc := agentService(env.store, "")
	userID, err := svc.UserIDByEmail(c.Context, c.String("email"))
	if err != nil {
		return err
	}
	return fn(svc, userID)
}

// The device commands go through the device links' ...ByEmail methods, the
// admin path its tests cover.
func adminDeviceApprove(c *cli.Context) error {
	budget, err := approvalBudget(c)
	if err != nil {
		return err
	}
	if budget.Mode, err = agents.ParseMode(c.String("mode")); err != nil {
		return err
	}
	env, err := openAdmin(c, true)
	if err != nil {
		return err
	}
	defer env.close()
	linked, err := deviceLinks(agentService(env.store, ""), env.tc, env.intents).ApproveDeviceByEmail(c.Context, c.String("email"), c.String("code"), budget)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "approved: agent %s (%s) is linked with %s; it receives its key on its next poll\n", linked.AgentName, linked.AgentID, budget)
	for _, id := range linked.RevokedPaper {
		fmt.Fprintf(c.App.Writer, "revoked: the paper agent %s of the same name (going live is a new approval; its key no longer works)\n", id)
	}
	return nil
}

// approvalBudget reads --fixed-limit and --no-limit: neither is the
// service's default (agents.DefaultApprovalFixedLimitMicro), so scripts
// that approve without them keep working and get a bounded agent.
func approvalBudget(c *cli.Context) (agents.ApprovalBudget, error) {
	switch {
	case c.IsSet("fixed-limit") && c.Bool("no-limit"):
		return agents.ApprovalBudget{}, errs.E(errs.Invalid, "give --fixed-limit or --no-limit, not both").WithCode(errs.CodeInvalidBudget)
	case c.Bool("no-limit"):
		return agents.ApprovalBudget{NoLimit: true}, nil
	case c.IsSet("fixed-limit"):
		m, err := agents.ParseUSDC("--fixed-limit", c.String("fixed-limit"))
		if err != nil {
			return agents.ApprovalBudget{}, err
		}
		return agents.ApprovalBudget{FixedLimitMicro: m}, nil
	}
	return agents.DefaultApprovalBudget(), nil
}

func adminDeviceDeny(c *cli.Context) error {
	env, err := openAdmin(c, true)
	if err != nil {
		return err
	}
	defer env.close()
	if err := deviceLinks(agentService(env.store, ""), env.tc, env.intents).DenyDeviceByEmail(c.Context, c.String("email"), c.String("code")); err != nil {
		return err
	}
	fmt.Fprintln(c.App.Writer, "denied")
	return nil
}

func adminAgentList(c *cli.Context) error {
	return withAgents(c, func(svc *agents.Service, userID string) error {
		list, err := svc.List(c.Context, userID)
		if err != nil {
			return err
		}
		w := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
		fmt.Fprintln(w, "ID\tNAME\tSTATUS\tSCOPES\tREQ/MIN\tCREATED")
		for _, a := range list {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\n", a.ID, a.Name, a.Status, strings.Join(a.Scopes, ","), a.RateLimit, a.CreatedAt.UTC().Format("2006-01-02 15:04:05Z"))
		}
		return w.Flush()
	})
}

func adminAgentRateLimit(c *cli.Context) error {
	return withAgents(c, func(svc *agents.Service, userID string) error {
		a, err := svc.SetRateLimit(c.Context, userID, c.String("agent"), agents.ClientAddrCLI, c.Int("per-minute"))
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "agent %s (%s) may now make %d requests per minute\n", a.Name, a.ID, a.RateLimit)
		return nil
	})
}

func adminAgentBudget(c *cli.Context) error {
	var ch agents.BudgetChange
	if v := c.String("fixed-limit"); c.IsSet("fixed-limit") {
		micro, err := agents.ParseUSDC("--fixed-limit", v)
		if err != nil {
			return err
		}
		ch.FixedLimitMicro = &micro
	}
	if v := c.String("budget-percent"); c.IsSet("budget-percent") {
		bps, err := agents.ParsePercent("--budget-percent", v)
		if err != nil {
			return err
		}
		ch.PercentBps = &bps
	}
	if v := c.String("max-position-value"); c.IsSet("max-position-value") {
		micro, err := agents.ParseUSDC("--max-position-value", v)
		if err != nil {
			return err
		}
		ch.MaxPositionValueMicro = &micro
	}
	for _, v := range c.StringSlice("clear") {
		for _, name := range strings.Split(v, ",") {
			ch.Clear = append(ch.Clear, strings.TrimSpace(name))
		}
	}
	return withAgents(c, func(svc *agents.Service, userID string) error {
		a, err := svc.UpdateBudget(c.Context, userID, c.String("agent"), agents.ClientAddrCLI, ch)
		if err != nil {
			return err
		}
		b := a.Budget
		fmt.Fprintf(c.App.Writer, "agent %s (%s) budget: %s %s, %s %s, %s %s\n", a.Name, a.ID,
			agents.LimitFixed, usdcOrUnset(b.FixedLimitMicro), agents.LimitBudgetPercent, percentOrUnset(b.PercentBps),
			agents.LimitMaxPositionValue, usdcOrUnset(b.MaxPositionValueMicro))
		return nil
	})
}

func adminAgentHeartbeat(c *cli.Context) error {
	hours, always := c.String("active-hours"), c.Bool("always")
	switch {
	case always && (c.IsSet("active-hours") || c.IsSet("timezone")):
		return errs.E(errs.Invalid, "--always and --active-hours/--timezone exclude each other")
	case c.IsSet("active-hours") != c.IsSet("timezone"):
		return errs.E(errs.Invalid, "--active-hours and --timezone go together")
	case !c.IsSet("interval") && !c.IsSet("active-hours") && !always:
		return errs.E(errs.Invalid, "name --interval, --active-hours with --timezone, or --always")
	}
	var window *agents.ActiveHours
	if c.IsSet("active-hours") {
		start, end, ok := strings.Cut(hours, "-")
		if !ok {
			return errs.E(errs.Invalid, "--active-hours must be HH:MM-HH:MM, e.g. 09:00-17:00")
		}
		window = &agents.ActiveHours{Start: strings.TrimSpace(start), End: strings.TrimSpace(end), Timezone: c.String("timezone")}
	}
	return withAgents(c, func(svc *agents.Service, userID string) error {
		cur, err := svc.Get(c.Context, userID, c.String("agent"))
		if err != nil {
			return err
		}
		h := cur.Heartbeat
		if c.IsSet("interval") {
			h.IntervalMs = c.Duration("interval").Milliseconds()
		}
		switch {
		case always:
			h.ActiveHours = nil
		case window != nil:
			h.ActiveHours = window
		}
		a, err := svc.SetHeartbeat(c.Context, userID, cur.ID, agents.ClientAddrCLI, h)
		if err != nil {
			return err
		}
		hb := "always active"
		if ah := a.Heartbeat.ActiveHours; ah != nil {
			hb = fmt.Sprintf("active %s-%s %s", ah.Start, ah.End, ah.Timezone)
		}
		fmt.Fprintf(c.App.Writer, "agent %s (%s) heartbeat: every %s, %s\n", a.Name, a.ID,
			time.Duration(a.Heartbeat.IntervalMs)*time.Millisecond, hb)
		return nil
	})
}

func usdcOrUnset(m *int64) string {
	if m == nil {
		return "unset"
	}
	return micro.Decimal(*m).String() + " USDC"
}

func percentOrUnset(bps *int32) string {
	if bps == nil {
		return "unset"
	}
	return decimal.New(int64(*bps), -2).String() + "%"
}

func adminUserCreate(c *cli.Context) error {
	if !c.Bool("password-stdin") {
		return errs.E(errs.Invalid, "pass --password-stdin and give the password on standard input")
	}
	password, err := readSecretLine(os.Stdin)
	if err != nil {
		return err
	}
	log := newLogger(c)
	s, err := openStore(c.Context, c, log)
	if err != nil {
		return err
	}
	defer s.Close()
	svc := &users.Service{Store: s, Audit: &audit.Service{Store: s}}
	u, err := svc.Create(c.Context, c.String("email"), password)
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "created user %s (%s)\n", u.ID, u.Email)
	return nil
}

func adminUserInvite(c *cli.Context) error {
	log := newLogger(c)
	s, err := openStore(c.Context, c, log)
	if err != nil {
		return err
	}
	defer s.Close()
	svc := &users.Service{Store: s, Audit: &audit.Service{Store: s}}
	code, err := svc.CreateInvite(c.Context, c.String("email"), c.Duration("ttl"))
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "invite code: %s\nsign-up page: /signup?invite=%s\n", code, code)
	return nil
}

// readSecretLine reads one line (the trailing newline is not part of it).
func readSecretLine(r io.Reader) (string, error) {
	line, err := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
	if err != nil && err != io.EOF {
		return "", fmt.Errorf("read standard input: %w", err)
	}
	line = strings.TrimRight(line, "\r\n")
	if line == "" {
		return "", errs.E(errs.Invalid, "no password on standard input")
	}
	return line, nil
}

func adminWalletImport(c *cli.Context) error {
	if !c.Bool("private-key-stdin") {
		return errs.E(errs.Invalid, "pass --private-key-stdin and give the private key on standard input")
	}
	key, err := readSecretLine(os.Stdin)
	if err != nil {
		return errs.E(errs.Invalid, "no private key on standard input")
	}
	return withUserServices(c, false, func(svc *Services, userID string) error {
		svc.Wallets.RequireTwoFactor = !c.Bool(flagWalletImportWithout2FA)
		w, err := svc.Wallets.Import(c.Context, userID, key, c.String("proxy-address"), agents.ClientAddrCLI)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.Writer, "imported %s wallet %s: trading address %s, signer %s\n", w.Kind, w.ID, w.Address, w.EOAAddress)
		return nil
	})
}

// withUserServices opens the database (and Temporal when withTemporal),
// connects to the --venue, builds the services as the running service
// does, and runs fn with them and the id of the --email user: the admin
// commands act through the same services as the dashboard.
func withUserServices(c *cli.Context, withTemporal bool, fn func(svc *Services, userID string) error) error {
	venue := c.String(flagVenue)
	if venue == "" {
		venue = "sandbox"
		if u, _ := databaseURL(c); u != "" {
			venue = "polymarket"
		}
	}
	n, err := network.ByName(venue, "http://"+c.String(flagSandboxAddr))
	if err != nil {
		return errs.Wrap(errs.Invalid, err, err.Error())
	}
	keys, err := adminMasterKey(c)
	if err != nil {
		return err
	}
	env, err := openAdmin(c, withTemporal)
	if err != nil {
		return err
	}
	defer env.close()
	vc, err := ConnectVenue(c.Context, n, nil, c.String(flagChainRPC), nil)
	if err != nil {
		return err
	}
	defer vc.Close()
	svc, err := NewServices(env.store, env.tc, vc, keys, "", env.log)
	if err != nil {
		return err
	}
	userID, err := svc.Agents.UserIDByEmail(c.Context, c.String("email"))
	if err != nil {
		return err
	}
	return fn(svc, userID)
}

// adminMasterKeyRotate re-seals every stored secret under the new key and
// tells the operator what to do next. Secrets that changed while it ran
// make it exit with a conflict: run it again.
func adminMasterKeyRotate(c *cli.Context) error {
	cur, err := adminMasterKey(c)
	if err != nil {
		return err
	}
	prev, err := previousMasterKeys(c)
	if err != nil {
		return err
	}
	next, err := vault.LoadMasterKey(c.String("new-key-file"), "")
	if err != nil {
		return err
	}
	if bytes.Equal(next, cur.Current) {
		return errs.E(errs.Invalid, "the new master key is the current one")
	}
	v, err := vault.FromMasterKeys(next, append([][]byte{cur.Current}, prev...)...)
	if err != nil {
		return err
	}
	env, err := openAdmin(c, false)
	if err != nil {
		return err
	}
	defer env.close()
	rep, err := rotation.Rotate(c.Context, env.store, v, agents.ClientAddrCLI)
	if err != nil {
		return err
	}
	kinds := make([]string, 0, len(rep.Resealed))
	for _, k := range []string{vault.BindWalletKey, vault.BindVenueCreds, vault.BindTOTPSecret} {
		kinds = append(kinds, fmt.Sprintf("%s %d", k, rep.Resealed[k]))
	}
	fmt.Fprintf(c.App.Writer, "re-sealed %d secret(s) under the new master key (%s); %d already were\n",
		rep.Total(), strings.Join(kinds, ", "), rep.Current)
	if rep.Changed > 0 {
		return errs.Ef(errs.Conflict, "%d secret(s) changed while they were re-sealed: run the command again", rep.Changed)
	}
	fmt.Fprintln(c.App.Writer, "next: run every ats process with the new key as --master-key-file (ATS_MASTER_KEY) and the old one as "+
		"--previous-master-key-file (ATS_PREVIOUS_MASTER_KEY), which keeps Temporal payloads written under it readable; "+
		"drop the old key once those workflow histories are past the namespace's retention")
	return nil
}
