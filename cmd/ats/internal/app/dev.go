package app

import (
	"context"
	"log/slog"
	"os"

	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/sandbox"
)

type tclient = client.Client

// DemoEmail is the user `ats dev --demo` creates.
const DemoEmail = "demo@example.com"

// seedDemo creates the demo user and their funded, approved sandbox
// wallet. Re-running on the same data dir keeps both, and the wallet's
// balances as they were (the sandbox's chain is kept there too).
func seedDemo(ctx context.Context, svc *Services, sb *sandbox.Sandbox, log *slog.Logger) error {
	password := os.Getenv("ATS_DEMO_PASSWORD")
	if password == "" {
		password = "demo-password"
	}
	userID := ""
	u, err := svc.Agents.Users.Create(ctx, DemoEmail, password)
	switch {
	case errs.Is(err, errs.Conflict):
		if userID, err = svc.Agents.UserIDByEmail(ctx, DemoEmail); err != nil {
			return err
		}
		log.Info("demo user exists", "email", DemoEmail)
	case err != nil:
		return err
	default:
		userID = u.ID
		log.Info("demo user created", "email", DemoEmail, "user_id", u.ID)
	}
	if sb == nil {
		log.Warn("--demo without the sandbox venue: no demo wallet is created")
		return nil
	}
	if sb.Restored() {
		// The sandbox went on from its data dir: the wallet holds what it
		// held when it stopped, funding and approvals included.
		w, err := svc.Wallets.Get(ctx, userID)
		if err == nil {
			log.Info("demo wallet kept", "kind", w.Kind, "address", w.Address)
			return nil
		}
		if !errs.Is(err, errs.NotFound) {
			return err
		}
	}
	w, err := svc.Wallets.SeedDemo(ctx, sb.EVM(), userID)
	if err != nil {
		return err
	}
	log.Info("demo wallet ready", "kind", w.Kind, "address", w.Address)
	return nil
}
