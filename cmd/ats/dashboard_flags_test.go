package main

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestDashboardOperatorFlags: who is an operator and which Web UI their
// strategy pages link to, from --operator / ATS_OPERATORS and
// --temporal-ui-url, with the defaults of `dev` (its embedded UI, the demo
// user).
func TestDashboardOperatorFlags(t *testing.T) {
	const devUI, demo = "http://127.0.0.1:8233", "demo@example.com"
	for _, tc := range []struct {
		name      string
		args      []string
		env       string
		devUI     string
		devOp     string
		operators []string
		ui        string
		ns        string
		err       bool
	}{
		{name: "api without flags: nobody, no UI"},
		{name: "dev --demo: the demo user and the embedded UI", devUI: devUI, devOp: demo, operators: []string{demo}, ui: devUI},
		{name: "flags win over dev's defaults", args: []string{"--operator", "ops@example.com", "--operator", "b@example.com,c@example.com",
			"--temporal-ui-url", "https://temporal.example", "--temporal-namespace", "prod"}, devUI: devUI, devOp: demo,
			operators: []string{"ops@example.com", "b@example.com", "c@example.com"}, ui: "https://temporal.example", ns: "prod"},
		{name: "the env twin, comma-separated", env: " a@example.com, b@example.com ", operators: []string{"a@example.com", "b@example.com"}},
		{name: "a UI address that is not one", args: []string{"--temporal-ui-url", "temporal.example"}, err: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ATS_OPERATORS", tc.env)
			var got dashboardOptions
			var gotErr error
			app := &cli.App{
				Flags: append([]cli.Flag{signupFlag(), oidcFlag(), temporalNamespaceFlag()}, operatorFlags()...),
				Action: func(c *cli.Context) error {
					got, gotErr = dashboardOptionsFrom(c, "http://localhost:8080", "", "", tc.devUI, tc.devOp)
					return nil
				},
			}
			if err := app.Run(append([]string{"ats"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			if tc.err {
				if gotErr == nil {
					t.Fatalf("accepted: %+v", got)
				}
				return
			}
			if gotErr != nil {
				t.Fatal(gotErr)
			}
			ns := tc.ns
			if ns == "" {
				ns = "default"
			}
			if !slices.Equal(got.operators, tc.operators) || got.temporalUI != tc.ui || got.namespace != ns {
				t.Errorf("operators %q, UI %q, namespace %q", got.operators, got.temporalUI, got.namespace)
			}
		})
	}
}
