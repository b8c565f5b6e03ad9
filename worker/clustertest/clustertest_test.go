package clustertest_test

import (
	"context"
	"crypto/tls"
	"os"
	"testing"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"

	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/worker/clustertest"
)

func echo(ctx workflow.Context, s string) (string, error) { return s, nil }

// The cluster serves workflows over mutual TLS only, keeps them through
// the loss of a history process and a restart of every process, and
// refuses a client without a certificate.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a Temporal cluster")
	}
	base := os.Getenv(storetest.EnvDatabaseURL)
	if base == "" {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not set", storetest.EnvDatabaseURL)
		}
		t.Skipf("the Temporal cluster needs PostgreSQL: set %s", storetest.EnvDatabaseURL)
	}
	c := clustertest.Start(t, clustertest.Options{DatabaseURL: base})
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cl, err := client.DialContext(ctx, client.Options{HostPort: c.Address(), ConnectionOptions: client.ConnectionOptions{TLS: c.TLS()}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	w := worker.New(cl, "clustertest", worker.Options{})
	w.RegisterWorkflow(echo)
	if err := w.Start(); err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	run := func(what string) {
		t.Helper()
		r, err := cl.ExecuteWorkflow(ctx, client.StartWorkflowOptions{TaskQueue: "clustertest"}, echo, what)
		if err != nil {
			t.Fatalf("%s: start: %v\n%s", what, err, c.Logs())
		}
		var got string
		if err := r.Get(ctx, &got); err != nil || got != what {
			t.Fatalf("%s: %q %v\n%s", what, got, err, c.Logs())
		}
	}
	run("first")
	t0 := time.Now()
	c.Kill("history-1")
	run("without history-1")
	t.Logf("a workflow ran %v after history-1 died", time.Since(t0))
	c.Start("history-1")
	t0 = time.Now()
	c.KillAll()
	c.StartAll()
	run("after a restart")
	t.Logf("a workflow ran %v after the restart began", time.Since(t0))

	// Without a client certificate the frontend does not serve.
	pool := c.TLS().RootCAs
	dctx, dcancel := context.WithTimeout(ctx, 5*time.Second)
	defer dcancel()
	anon, err := client.DialContext(dctx, client.Options{HostPort: c.Address(),
		ConnectionOptions: client.ConnectionOptions{TLS: &tls.Config{RootCAs: pool, ServerName: c.Certs().ServerName, MinVersion: tls.VersionTLS12}}})
	if err == nil {
		_, err = anon.CheckHealth(dctx, &client.CheckHealthRequest{})
		anon.Close()
	}
	if err == nil {
		t.Fatal("the frontend served a client without a certificate")
	}
}
