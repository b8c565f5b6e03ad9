package main

import (
	"reflect"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/errs"
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
