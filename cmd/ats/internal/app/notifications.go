package app

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/urfave/cli/v2"
	"go.temporal.io/sdk/client"

	"github.com/agent-trading/ats/models/changes"
	"github.com/agent-trading/ats/models/identities"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/sandbox/githubprovider"
	"github.com/agent-trading/ats/workflows"
)

const (
	flagGitHubOAuth            = "github-oauth"
	flagWalletImportWithout2FA = "wallet-import-without-2fa"
	flagWebhookAllowPrivate    = "webhook-allow-private"
)

// githubFlag is --github-oauth: sign in with GitHub (plain OAuth2).
func githubFlag() cli.Flag {
	return &cli.StringFlag{Name: flagGitHubOAuth, EnvVars: []string{"ATS_GITHUB_OAUTH"}, Value: "https://github.com",
		Usage: "GitHub's web address for \"Sign in with GitHub\" (https://github.com, or a GitHub Enterprise Server's; its API is " +
			"https://api.github.com, or {BASE_URL}/api/v3); on when ATS_GITHUB_CLIENT_ID and ATS_GITHUB_CLIENT_SECRET name an OAuth app, " +
			"whose callback URL is {public-url}/auth/oidc/github/callback; `dev` points it at the sandbox's GitHub"}
}

// walletImportFlag is --wallet-import-without-2fa.
func walletImportFlag() cli.Flag {
	return &cli.BoolFlag{Name: flagWalletImportWithout2FA, EnvVars: []string{"ATS_WALLET_IMPORT_WITHOUT_2FA"},
		Usage: "let accounts without two-step verification import a wallet's private key (by default they must turn it on first: " +
			"a password alone must not be enough to put a key that trades real funds in)"}
}

// webhookFlag is --webhook-allow-private; on by default in `dev`.
func webhookFlag(dev bool) cli.Flag {
	return &cli.BoolFlag{Name: flagWebhookAllowPrivate, EnvVars: []string{"ATS_WEBHOOK_ALLOW_PRIVATE"}, Value: dev,
		Usage: "let notification webhooks go to loopback and private addresses and over plain http (a receiver on your own network); " +
			"off, a webhook must be https to a public address"}
}

// githubProvider is the GitHub sign-in the flags ask for: none without an
// OAuth app, unless sandboxGitHub (`ats dev`) offers the sandbox's, whose
// default app needs no configuration.
func githubProvider(c *cli.Context, sandboxGitHub string) *identities.ProviderConfig {
	id, secret := os.Getenv("ATS_GITHUB_CLIENT_ID"), os.Getenv("ATS_GITHUB_CLIENT_SECRET")
	base := c.String(flagGitHubOAuth)
	if sandboxGitHub != "" && !c.IsSet(flagGitHubOAuth) {
		base = sandboxGitHub
		if id == "" {
			id, secret = githubprovider.DefaultClientID, githubprovider.DefaultClientSecret
		}
	}
	if id == "" && !c.IsSet(flagGitHubOAuth) {
		return nil
	}
	p := identities.GitHubProvider(base, id, secret)
	return &p
}

// startChanges feeds the store's changes to a hub of this process (and, on
// PostgreSQL, to and from the other processes) until the stack stops.
func startChanges(st *stack, s *store.Store, log *slog.Logger) *changes.Hub {
	hub := changes.NewHub()
	ctx, cancel := context.WithCancel(context.Background())
	done := changes.Feed(ctx, s, hub, log.With("component", "changes"))
	st.onStop("changes", func(stop context.Context) error {
		cancel()
		select {
		case <-done:
		case <-stop.Done():
		}
		return nil
	})
	return hub
}

// dispatchSweep is how often the webhook dispatcher looks for pending
// notifications without being told (a hint lost while the process was
// busy or down); a change normally starts a delivery at once.
const dispatchSweep = time.Minute

// RunWebhookDispatch starts the delivery workflow of every pending
// notification: at once, on every notifications change, and every
// dispatchSweep. It returns when ctx ends.
func RunWebhookDispatch(ctx context.Context, hub *changes.Hub, w *workflows.Webhooks, log *slog.Logger) <-chan struct{} {
	done := make(chan struct{})
	sub := hub.Subscribe("", changes.Notifications)
	go func() {
		defer close(done)
		defer sub.Close()
		t := time.NewTicker(dispatchSweep)
		defer t.Stop()
		dispatch := func() {
			if err := w.Dispatch(ctx); err != nil && ctx.Err() == nil {
				log.WarnContext(ctx, "webhook deliveries not started; trying again at the next change or sweep", "err", err)
			}
		}
		dispatch()
		for {
			select {
			case <-ctx.Done():
				return
			case c := <-sub.C:
				if sub.Lost() || c.Topic == changes.Notifications {
					dispatch()
				}
			case <-t.C:
				dispatch()
			}
		}
	}()
	return done
}

// startWebhookDispatch runs the dispatcher in the stack (the worker's
// process: `ats worker`, `ats dev`).
func startWebhookDispatch(st *stack, hub *changes.Hub, tc client.Client, svc *Services, log *slog.Logger) {
	ctx, cancel := context.WithCancel(context.Background())
	done := RunWebhookDispatch(ctx, hub, &workflows.Webhooks{Client: tc, Outbox: svc.Notify, Logger: log}, log.With("component", "webhooks"))
	st.onStop("webhooks", func(stop context.Context) error {
		cancel()
		select {
		case <-done:
		case <-stop.Done():
		}
		return nil
	})
}
