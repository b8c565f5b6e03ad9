package app

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/worker"
)

func TestAPIConfigTrustedProxies(t *testing.T) {
	tests := []struct {
		name string
		args []string
		env  string
		want []string
		err  bool
	}{
		{name: "none by default"},
		{name: "addresses and CIDRs, repeated or comma-separated", args: []string{"--trusted-proxies", "10.0.0.1, 192.168.0.0/16", "--trusted-proxies", "::1"},
			want: []string{"10.0.0.1", "192.168.0.0/16", "::1"}},
		{name: "from the environment", env: "10.1.0.0/24,10.2.0.9", want: []string{"10.1.0.0/24", "10.2.0.9"}},
		{name: "blank items are ignored", args: []string{"--trusted-proxies", " , 10.0.0.2 ,"}, want: []string{"10.0.0.2"}},
		{name: "a host name is refused", args: []string{"--trusted-proxies", "lb.internal"}, err: true},
		{name: "a malformed CIDR is refused", args: []string{"--trusted-proxies", "10.0.0.0/40"}, err: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ATS_TRUSTED_PROXIES", tt.env)
			var got []string
			var gotErr error
			app := &cli.App{Flags: []cli.Flag{trustedProxiesFlag()}, Action: func(c *cli.Context) error {
				cfg, err := apiConfig(c, nil)
				got, gotErr = cfg.TrustedProxies, err
				return nil
			}}
			if err := app.Run(append([]string{"ats"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if tt.err {
				if errs.KindOf(gotErr) != errs.Invalid {
					t.Fatalf("want an invalid-argument error, got %v (%v)", gotErr, got)
				}
				return
			}
			if gotErr != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %v %v, want %v", got, gotErr, tt.want)
			}
		})
	}
}

func TestWorkflowCacheFlag(t *testing.T) {
	t.Cleanup(func() { worker.SetWorkflowCacheSize(worker.DefaultWorkflowCacheSize) })
	for _, tt := range []struct {
		name string
		args []string
		env  string
		want int
		err  bool
	}{
		{name: "the default caps the SDK's 10,000", want: worker.DefaultWorkflowCacheSize},
		{name: "set by the flag", args: []string{"--workflow-cache-size", "500"}, want: 500},
		{name: "from the environment", env: "750", want: 750},
		{name: "0 turns sticky execution off", args: []string{"--workflow-cache-size", "0"}, want: 0},
		{name: "negative is refused", args: []string{"--workflow-cache-size", "-1"}, err: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("ATS_WORKFLOW_CACHE_SIZE", tt.env)
			worker.SetWorkflowCacheSize(worker.DefaultWorkflowCacheSize)
			var gotErr error
			app := &cli.App{Flags: []cli.Flag{workflowCacheFlag()}, Action: func(c *cli.Context) error {
				gotErr = setWorkflowCache(c)
				return nil
			}}
			if err := app.Run(append([]string{"ats"}, tt.args...)); err != nil {
				t.Fatal(err)
			}
			if tt.err {
				if errs.KindOf(gotErr) != errs.Invalid || worker.WorkflowCacheSize() != worker.DefaultWorkflowCacheSize {
					t.Fatalf("want an invalid-argument error and the size unchanged, got %v (%d)", gotErr, worker.WorkflowCacheSize())
				}
				return
			}
			if gotErr != nil || worker.WorkflowCacheSize() != tt.want {
				t.Fatalf("size %d (%v), want %d", worker.WorkflowCacheSize(), gotErr, tt.want)
			}
		})
	}
}
