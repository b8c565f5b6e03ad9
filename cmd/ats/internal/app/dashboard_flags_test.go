package app

import (
	"slices"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/agent-trading/ats/models/identities"
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
			var got DashboardOptions
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
			if !slices.Equal(got.Operators, tc.operators) || got.TemporalUI != tc.ui || got.namespace != ns {
				t.Errorf("operators %q, UI %q, namespace %q", got.Operators, got.TemporalUI, got.namespace)
			}
		})
	}
}

// TestGitHubFlags: sign in with GitHub is on when an OAuth app is named
// (ATS_GITHUB_CLIENT_ID / _SECRET), at github.com or the --github-oauth
// address (GitHub Enterprise Server's API under /api/v3); `dev` offers the
// sandbox's GitHub with its default app; naming the address without an
// app is refused at start-up.
func TestGitHubFlags(t *testing.T) {
	const sandbox = "http://127.0.0.1:8090/github"
	for _, tc := range []struct {
		name              string
		args              []string
		id, secret        string
		sandboxGitHub     string
		wantBase, wantAPI string
		wantID            string
		refused           bool
	}{
		{name: "nothing named: off"},
		{name: "an app: github.com", id: "Iv1.abc", secret: "s3cret", wantBase: "https://github.com", wantAPI: "https://api.github.com", wantID: "Iv1.abc"},
		{name: "Enterprise Server", args: []string{"--github-oauth", "https://ghe.example.com/"}, id: "Iv1.x", secret: "y",
			wantBase: "https://ghe.example.com", wantAPI: "https://ghe.example.com/api/v3", wantID: "Iv1.x"},
		{name: "dev: the sandbox's GitHub", sandboxGitHub: sandbox, wantBase: sandbox, wantAPI: sandbox + "/api/v3", wantID: "ats-dashboard"},
		{name: "an address without an app", args: []string{"--github-oauth", "https://ghe.example.com"}, wantBase: "https://ghe.example.com",
			wantAPI: "https://ghe.example.com/api/v3", refused: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ATS_GITHUB_CLIENT_ID", tc.id)
			t.Setenv("ATS_GITHUB_CLIENT_SECRET", tc.secret)
			var got DashboardOptions
			app := &cli.App{
				Flags: append([]cli.Flag{signupFlag(), oidcFlag(), githubFlag(), temporalNamespaceFlag()}, operatorFlags()...),
				Action: func(c *cli.Context) (err error) {
					got, err = dashboardOptionsFrom(c, "http://localhost:8080", "", tc.sandboxGitHub, "", "")
					return err
				},
			}
			if err := app.Run(append([]string{"ats"}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			var gh *identities.ProviderConfig
			for i, p := range got.Providers {
				if p.Name == "github" {
					gh = &got.Providers[i]
				}
			}
			if tc.wantBase == "" {
				if gh != nil {
					t.Fatalf("GitHub on: %+v", gh)
				}
				return
			}
			if gh == nil || gh.Kind != identities.KindGitHub || gh.Issuer != tc.wantBase || gh.APIURL != tc.wantAPI || gh.ClientID != tc.wantID {
				t.Fatalf("GitHub %+v", gh)
			}
			_, err := identities.New(nil, nil, "http://localhost:8080", got.Providers)
			if (err != nil) != tc.refused {
				t.Fatalf("identities.New: %v, refused %v", err, tc.refused)
			}
		})
	}
}
